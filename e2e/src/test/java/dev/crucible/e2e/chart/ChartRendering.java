package dev.crucible.e2e.chart;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** Renders the chart with helm-java (a real Helm, bundled from Maven Central). */
final class ChartRendering {

    private ChartRendering() {
    }

    static Path chartDir() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("helm/crucible"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException("helm/crucible not found above " + Path.of("").toAbsolutePath());
        }
        return p.resolve("helm/crucible");
    }

    static String render(Map<String, Object> values) {
        return render("crucible", "crucible-system", values);
    }

    static String render(String release, String namespace, Map<String, Object> values) {
        TemplateCommand cmd = new Helm(chartDir()).template().withName(release).withNamespace(namespace);
        values.forEach(cmd::set);
        return cmd.call();
    }
}
