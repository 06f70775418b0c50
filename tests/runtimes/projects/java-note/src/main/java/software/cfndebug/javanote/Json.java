package software.cfndebug.javanote;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A small JSON reader and writer (the fixture has no outside libraries): objects are
 * LinkedHashMaps, arrays ArrayLists, numbers Longs or Doubles. */
public final class Json {
    private final String text;
    private int at;

    private Json(final String text) {
        this.text = text;
    }

    public static Object parse(final String text) {
        final Json reader = new Json(text);
        final Object value = reader.value();
        reader.space();
        if (reader.at != text.length()) {
            throw reader.error("end of the document");
        }
        return value;
    }

    private IllegalArgumentException error(final String expected) {
        return new IllegalArgumentException("expected " + expected + " at offset " + at);
    }

    private void space() {
        while (at < text.length() && " \t\r\n".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
    }

    private Object value() {
        space();
        if (at >= text.length()) {
            throw error("a value");
        }
        final char c = text.charAt(at);
        if (c == '{') {
            return object();
        }
        if (c == '[') {
            return array();
        }
        if (c == '"') {
            return string();
        }
        if (text.startsWith("true", at)) {
            at += 4;
            return Boolean.TRUE;
        }
        if (text.startsWith("false", at)) {
            at += 5;
            return Boolean.FALSE;
        }
        if (text.startsWith("null", at)) {
            at += 4;
            return null;
        }
        return number();
    }

    private Map<String, Object> object() {
        final Map<String, Object> out = new LinkedHashMap<>();
        at++;
        space();
        if (at < text.length() && text.charAt(at) == '}') {
            at++;
            return out;
        }
        while (true) {
            space();
            if (at >= text.length() || text.charAt(at) != '"') {
                throw error("a member name");
            }
            final String key = string();
            space();
            if (at >= text.length() || text.charAt(at) != ':') {
                throw error("':'");
            }
            at++;
            out.put(key, value());
            space();
            if (at < text.length() && text.charAt(at) == ',') {
                at++;
                continue;
            }
            if (at < text.length() && text.charAt(at) == '}') {
                at++;
                return out;
            }
            throw error("',' or '}'");
        }
    }

    private List<Object> array() {
        final List<Object> out = new ArrayList<>();
        at++;
        space();
        if (at < text.length() && text.charAt(at) == ']') {
            at++;
            return out;
        }
        while (true) {
            out.add(value());
            space();
            if (at < text.length() && text.charAt(at) == ',') {
                at++;
                continue;
            }
            if (at < text.length() && text.charAt(at) == ']') {
                at++;
                return out;
            }
            throw error("',' or ']'");
        }
    }

    private String string() {
        final StringBuilder out = new StringBuilder();
        at++;
        while (at < text.length()) {
            final char c = text.charAt(at++);
            if (c == '"') {
                return out.toString();
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (at >= text.length()) {
                break;
            }
            final char e = text.charAt(at++);
            switch (e) {
                case 'b': out.append('\b'); break;
                case 'f': out.append('\f'); break;
                case 'n': out.append('\n'); break;
                case 'r': out.append('\r'); break;
                case 't': out.append('\t'); break;
                case 'u':
                    if (at + 4 > text.length()) {
                        throw error("four hex digits");
                    }
                    out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    at += 4;
                    break;
                default: out.append(e);
            }
        }
        throw error("the end of a string");
    }

    private Object number() {
        final int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
        final String digits = text.substring(start, at);
        if (digits.isEmpty()) {
            throw error("a value");
        }
        try {
            if (digits.indexOf('.') < 0 && digits.indexOf('e') < 0 && digits.indexOf('E') < 0) {
                return Long.parseLong(digits);
            }
            return Double.parseDouble(digits);
        } catch (NumberFormatException e) {
            throw error("a number");
        }
    }

    public static String write(final Object value) {
        final StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    @SuppressWarnings("unchecked")
    private static void write(final Object value, final StringBuilder out) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String) {
            quote((String) value, out);
        } else if (value instanceof Map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<String, Object> entry : ((Map<String, Object>) value).entrySet()) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                quote(entry.getKey(), out);
                out.append(':');
                write(entry.getValue(), out);
            }
            out.append('}');
        } else if (value instanceof List) {
            out.append('[');
            boolean first = true;
            for (Object item : (List<Object>) value) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                write(item, out);
            }
            out.append(']');
        } else {
            out.append(value.toString());
        }
    }

    private static void quote(final String s, final StringBuilder out) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            final char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }
}
