import com.marcnuri.helm.Helm;
import com.marcnuri.helm.Release;
import java.nio.file.Path;

/**
 * Installs (or upgrades) the chart with helm-java, the Helm the Java tier uses, so e2e/real-node/up
 * needs no helm binary. Run as a single-file program:
 *   java -cp HELM_JAVA_JARS ChartInstall.java KUBECONFIG CHART_DIR NAMESPACE [key=value ...]
 */
public class ChartInstall {
    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: ChartInstall KUBECONFIG CHART_DIR NAMESPACE [key=value ...]");
            System.exit(2);
        }
        var upgrade = new Helm(Path.of(args[1])).upgrade().install().createNamespace()
                .withName("crucible").withNamespace(args[2]).withKubeConfig(Path.of(args[0]));
        for (int i = 3; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            if (eq < 1) {
                System.err.println("ChartInstall: not key=value: " + args[i]);
                System.exit(2);
            }
            upgrade.set(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        Release release = upgrade.call();
        System.out.println("release " + release.getName() + " " + release.getStatus() + " revision " + release.getRevision());
    }
}
