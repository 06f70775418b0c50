package software.cfndebug.javanote;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The note's create, read, update, delete and list handlers: one JSON file per note. */
public class NoteHandlers {
    private static File store() {
        final String dir = System.getenv("JAVA_NOTE_STORE");
        if (dir != null && !dir.isEmpty()) {
            return new File(dir);
        }
        // Not java.io.tmpdir: the wrapper empties it at every invocation.
        final String tmp = System.getenv("TMPDIR");
        return new File(tmp != null && !tmp.isEmpty() ? tmp : "/tmp", "cfndebug-java-note");
    }

    static Map<String, Object> failed(final String code, final String message) {
        final Map<String, Object> out = new LinkedHashMap<>();
        out.put("status", "FAILED");
        out.put("errorCode", code);
        out.put("message", message);
        return out;
    }

    private static Map<String, Object> success(final Object model) {
        final Map<String, Object> out = new LinkedHashMap<>();
        out.put("status", "SUCCESS");
        if (model != null) {
            out.put("resourceModel", model);
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(final Object value) {
        return value instanceof Map ? (Map<String, Object>) value : new LinkedHashMap<>();
    }

    private static File file(final Object id) {
        return new File(store(), new File(String.valueOf(id)).getName() + ".json");
    }

    private static Map<String, Object> load(final Object id) {
        try {
            return object(Json.parse(new String(Files.readAllBytes(file(id).toPath()), StandardCharsets.UTF_8)));
        } catch (IOException | IllegalArgumentException e) {
            return null;
        }
    }

    private static void save(final Map<String, Object> model) throws IOException {
        store().mkdirs();
        Files.write(file(model.get("NoteId")).toPath(), Json.write(model).getBytes(StandardCharsets.UTF_8));
    }

    public Map<String, Object> handle(final Map<String, Object> request) throws IOException {
        final String action = String.valueOf(request.get("action"));
        final Map<String, Object> data = object(request.get("requestData"));
        final Map<String, Object> model = object(data.get("resourceProperties"));
        final String fault = String.valueOf(object(data.get("typeConfiguration")).get("Fault"));
        System.out.println("[" + action + "] invoking handler...");
        // Where the AWS SDK for Java 2.x would send its calls (it honours AWS_ENDPOINT_URL).
        System.out.println("AWS_ENDPOINT_URL=" + System.getenv("AWS_ENDPOINT_URL")
            + " credentials=" + (System.getenv("AWS_ACCESS_KEY_ID") != null));
        if ("Exit".equals(fault)) {
            System.out.println("planted fault: Exit, the JVM ends now");
            System.exit(3);
        }
        if ("Hang".equals(fault)) {
            System.out.println("planted fault: Hang, sleeping");
            try {
                Thread.sleep(600_000L);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if ("Throw".equals(fault)) {
            throw new IllegalStateException("planted fault: Throw");
        }
        final Map<String, Object> out;
        switch (action) {
            case "CREATE":
                out = create(model, fault, object(request.get("callbackContext")),
                             String.valueOf(request.get("bearerToken")));
                break;
            case "READ": out = read(model); break;
            case "UPDATE": out = update(model); break;
            case "DELETE": out = delete(model); break;
            case "LIST": out = list(); break;
            default: out = failed("InvalidRequest", "Unknown action " + action);
        }
        System.out.println("[" + action + "] handler invoked: " + out.get("status"));
        return out;
    }

    private static String byTitle(final Object title) {
        final File[] files = store().listFiles();
        if (files != null) {
            for (File f : files) {
                final String name = f.getName();
                if (name.startsWith("note-") && name.endsWith(".json")) {
                    final Map<String, Object> found = load(name.substring(0, name.length() - 5));
                    if (found != null && title.equals(found.get("Title"))) {
                        return String.valueOf(found.get("NoteId"));
                    }
                }
            }
        }
        return null;
    }

    private Map<String, Object> create(final Map<String, Object> model, final String fault,
                                       final Map<String, Object> context, final String token)
        throws IOException {
        // The request's token (the plugin's clientRequestToken) names the note it created.
        final File tokenFile = new File(store(), "token-" + new File(token).getName());
        if (context.get("NoteId") == null && tokenFile.isFile()) {
            final String id = new String(Files.readAllBytes(tokenFile.toPath()), StandardCharsets.UTF_8);
            context.put("NoteId", id);
        }
        if (context.get("NoteId") != null) {
            // The second invocation of the chain: the note is there, the create is done.
            final Map<String, Object> found = load(context.get("NoteId"));
            if (found == null) {
                throw new IllegalStateException("the note written by the first invocation is gone");
            }
            if ("MissingPrimaryIdentifier".equals(fault)) {
                found.remove("NoteId");
            }
            return success(found);
        }
        final Object title = model.get("Title");
        if (!(title instanceof String) || ((String) title).trim().isEmpty()) {
            return failed("InvalidRequest", "Title is required");
        }
        final String existing = byTitle(title);
        if (existing != null) {
            return failed("AlreadyExists", "a note titled " + title + " exists: " + existing);
        }
        final byte[] raw = new byte[8];
        new SecureRandom().nextBytes(raw);
        final StringBuilder id = new StringBuilder("note-");
        for (byte b : raw) {
            id.append(String.format("%02x", b & 0xff));
        }
        model.put("NoteId", id.toString());
        save(model);
        Files.write(tokenFile.toPath(), id.toString().getBytes(StandardCharsets.UTF_8));
        final Map<String, Object> callback = new LinkedHashMap<>();
        callback.put("NoteId", id.toString());
        final Map<String, Object> out = new LinkedHashMap<>();
        out.put("status", "IN_PROGRESS");
        out.put("callbackContext", callback);
        out.put("callbackDelaySeconds", 1L);
        out.put("resourceModel", model);
        return out;
    }

    private Map<String, Object> read(final Map<String, Object> model) {
        final Map<String, Object> found = load(model.get("NoteId"));
        return found == null ? failed("NotFound", "note " + model.get("NoteId") + " not found") : success(found);
    }

    private Map<String, Object> update(final Map<String, Object> model) throws IOException {
        if (load(model.get("NoteId")) == null) {
            return failed("NotFound", "note " + model.get("NoteId") + " not found");
        }
        save(model);
        return success(new LinkedHashMap<>(model));
    }

    private Map<String, Object> delete(final Map<String, Object> model) {
        if (load(model.get("NoteId")) == null) {
            return failed("NotFound", "note " + model.get("NoteId") + " not found");
        }
        file(model.get("NoteId")).delete();
        return success(null);
    }

    private Map<String, Object> list() {
        final List<Object> models = new ArrayList<>();
        final File[] files = store().listFiles();
        if (files != null) {
            Arrays.sort(files);
            for (File f : files) {
                if (f.getName().startsWith("note-") && f.getName().endsWith(".json")) {
                    final Map<String, Object> found = load(f.getName().substring(0, f.getName().length() - 5));
                    if (found != null) {
                        found.remove("Secret");
                        models.add(found);
                    }
                }
            }
        }
        final Map<String, Object> out = new LinkedHashMap<>();
        out.put("status", "SUCCESS");
        out.put("resourceModels", models);
        return out;
    }
}
