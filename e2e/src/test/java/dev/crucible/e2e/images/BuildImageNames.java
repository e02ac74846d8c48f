package dev.crucible.e2e.images;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The image names and tag the build writes, read from the one place they are defined: the root
 * pom.xml's crucible.image.* properties ({@code ${project.version}} resolved).
 */
public final class BuildImageNames {
    private final Map<String, String> properties;
    private final String version;

    private BuildImageNames(Map<String, String> properties, String version) {
        this.properties = properties;
        this.version = version;
    }

    public static Path repoRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isRegularFile(p.resolve("images/build-base.sh"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException("images/build-base.sh not found above " + Path.of("").toAbsolutePath());
        }
        return p;
    }

    public static BuildImageNames fromRootPom() throws Exception {
        Path pom = repoRoot().resolve("pom.xml");
        var factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Element project = factory.newDocumentBuilder().parse(pom.toFile()).getDocumentElement();
        String version = child(project, "version");
        Map<String, String> props = new HashMap<>();
        NodeList list = ((Element) project.getElementsByTagName("properties").item(0)).getChildNodes();
        for (int i = 0; i < list.getLength(); i++) {
            if (list.item(i) instanceof Element e) {
                props.put(e.getTagName(), e.getTextContent().trim().replace("${project.version}", version));
            }
        }
        return new BuildImageNames(props, version);
    }

    public String projectVersion() {
        return version;
    }

    public String tag() {
        return property("crucible.image.tag");
    }

    /** NAME:TAG of an image: operator, sidecar-verifier, snapshot-agent, probe-server, pause, example-python. */
    public String reference(String image) {
        return property("crucible.image." + image) + ":" + tag();
    }

    private String property(String key) {
        String v = properties.get(key);
        if (v == null) {
            throw new IllegalStateException("root pom.xml has no property " + key);
        }
        return v;
    }

    private static String child(Element parent, String tag) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(tag)) {
                return e.getTextContent().trim();
            }
        }
        throw new IllegalStateException("root pom.xml has no <" + tag + ">");
    }
}
