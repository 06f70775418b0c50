import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;

/**
 * cfn-debug's launcher of a Java plugin's executable entry point: it says when the JVM reached
 * main (so the JVM's start is told apart from the handler's time), runs the entry point's main
 * with the remaining arguments, and says when that main returned. Compiled by cfn-debug into its
 * cache; nothing of it is written into the project.
 */
public final class CfnDebugLauncher {
    private CfnDebugLauncher() {
    }

    public static void main(final String[] args) throws Throwable {
        System.out.println("__CFN_DEBUG_MAIN_STARTED__ " + System.currentTimeMillis());
        System.out.flush();
        final Class<?> entry = Class.forName(args[0]);
        final Method main = entry.getMethod("main", String[].class);
        try {
            main.invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
        } catch (InvocationTargetException e) {
            throw e.getCause();
        } finally {
            System.out.flush();
            System.out.println("__CFN_DEBUG_MAIN_ENDED__ " + System.currentTimeMillis());
            System.out.flush();
        }
    }
}
