package software.cfndebug.javanote;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.FileReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.UUID;
import java.util.zip.GZIPInputStream;

/** The Java plugin's executable entry point, as its generated HandlerWrapperExecutable works,
 * without its libraries: the HandlerRequest JSON is the one argument (or its gzip, base64, under
 * "__COMPRESSED__"), java.io.tmpdir is emptied first, the ProgressEvent is written to a
 * UUID.txt in the working directory and printed between the response markers. */
public class HandlerWrapperExecutable {
    private static final String[] WRITE_ONLY = {"Secret"};

    public static void main(final String[] args) throws IOException {
        if (args.length != 1) {
            System.exit(1);
        }
        final String outputFile = UUID.randomUUID().toString() + ".txt";
        try (FileOutputStream output = new FileOutputStream(outputFile)) {
            new HandlerWrapperExecutable().handleRequest(args[0], output);
            output.flush();
        }
        final boolean markers = System.getenv("JAVA_NOTE_NO_MARKERS") == null;
        if (markers) {
            System.out.println("__CFN_RESOURCE_START_RESPONSE__");
        }
        try (BufferedReader reader = new BufferedReader(new FileReader(outputFile))) {
            String line;
            while ((line = reader.readLine()) != null) {
                System.out.println(line);
            }
        }
        if (markers) {
            System.out.println("__CFN_RESOURCE_END_RESPONSE__");
        }
    }

    private static void scrubFiles() {
        final File[] files = new File(System.getProperty("java.io.tmpdir")).listFiles();
        if (files == null) {
            return;
        }
        for (File file : files) {
            delete(file);
        }
    }

    private static void delete(final File file) {
        final File[] children = file.listFiles();
        if (children != null) {
            for (File child : children) {
                delete(child);
            }
        }
        file.delete();
    }

    private static String decompress(final String input) throws IOException {
        final Object parsed = Json.parse(input);
        if (!(parsed instanceof Map) || !((Map<?, ?>) parsed).containsKey("__COMPRESSED__")) {
            return input;
        }
        final byte[] bytes = Base64.getDecoder().decode((String) ((Map<?, ?>) parsed).get("__COMPRESSED__"));
        try (InputStream gzip = new GZIPInputStream(new ByteArrayInputStream(bytes))) {
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            final byte[] buffer = new byte[8192];
            int n;
            while ((n = gzip.read(buffer)) > 0) {
                out.write(buffer, 0, n);
            }
            return new String(out.toByteArray(), StandardCharsets.UTF_8);
        }
    }

    @SuppressWarnings("unchecked")
    public void handleRequest(final String input, final OutputStream output) throws IOException {
        scrubFiles();
        Map<String, Object> response;
        try {
            final Map<String, Object> request = (Map<String, Object>) Json.parse(decompress(input));
            response = new NoteHandlers().handle(request);
        } catch (final Throwable e) {
            System.out.println("An unknown error occurred " + e);
            e.printStackTrace(System.out);
            response = NoteHandlers.failed("InternalFailure", String.valueOf(e.getMessage()));
        }
        final Object model = response.get("resourceModel");
        if (model instanceof Map && !"IN_PROGRESS".equals(response.get("status"))) {
            for (String name : WRITE_ONLY) {
                ((Map<String, Object>) model).remove(name);
            }
        }
        output.write(Json.write(response).getBytes(StandardCharsets.UTF_8));
        output.flush();
    }
}
