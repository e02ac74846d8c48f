package dev.crucible.e2e.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * docs/architecture.md's "Module dependencies" list is the module graph: every compile-scope
 * dependency of one Crucible module on another in the poms is listed there, and nothing more. The
 * drawing cannot drift from the build (it had drawn two edges no pom had).
 */
class ModuleGraphTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINE = Pattern.compile("^- `([a-z0-9-]+)` → (.*)$");

    @Test
    void theDocumentedModuleGraphIsThePoms() throws Exception {
        Map<String, TreeSet<String>> documented = documented();
        Map<String, TreeSet<String>> built = built();
        assertThat(documented).as("modules listed in docs/architecture.md").isNotEmpty();
        assertThat(documented.keySet()).as("every module of the root pom is listed, and no other").isEqualTo(built.keySet());
        for (String m : built.keySet()) {
            assertThat(documented.get(m)).as("docs/architecture.md: `" + m + "` →").isEqualTo(built.get(m));
        }
    }

    private static Map<String, TreeSet<String>> documented() throws Exception {
        Map<String, TreeSet<String>> out = new TreeMap<>();
        boolean in = false;
        for (String l : Files.readAllLines(ROOT.resolve("docs/architecture.md"))) {
            if (l.startsWith("#")) in = l.equals("### Module dependencies");
            Matcher m = LINE.matcher(l);
            if (!in || !m.matches()) continue;
            TreeSet<String> deps = new TreeSet<>();
            String list = m.group(2).replaceAll("\\(.*\\)", "").strip();
            if (!list.equals("nothing")) for (String d : list.split(",")) deps.add(d.strip());
            out.put(m.group(1), deps);
        }
        return out;
    }

    /** Each module of the root pom with its compile-scope dependencies on crucible-* artifacts. */
    private static Map<String, TreeSet<String>> built() throws Exception {
        Map<String, TreeSet<String>> out = new TreeMap<>();
        for (String module : children(root(ROOT.resolve("pom.xml")), "modules", "module")) {
            Element pom = root(ROOT.resolve(module).resolve("pom.xml"));
            TreeSet<String> deps = new TreeSet<>();
            for (Element d : elements(pom, "dependencies", "dependency")) {
                String scope = text(d, "scope");
                if (!"dev.crucible".equals(text(d, "groupId")) || !(scope == null || scope.equals("compile"))) continue;
                deps.add(text(d, "artifactId").replaceFirst("^crucible-", ""));
            }
            out.put(module, deps);
        }
        return out;
    }

    private static Element root(Path pom) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile()).getDocumentElement();
    }

    /** The direct children named {@code name} of the direct child {@code parent} (not dependencyManagement's). */
    private static List<Element> elements(Element root, String parent, String name) {
        List<Element> out = new ArrayList<>();
        for (Node p = root.getFirstChild(); p != null; p = p.getNextSibling()) {
            if (!(p instanceof Element pe) || !pe.getTagName().equals(parent)) continue;
            NodeList kids = pe.getChildNodes();
            for (int i = 0; i < kids.getLength(); i++) if (kids.item(i) instanceof Element k && k.getTagName().equals(name)) out.add(k);
        }
        return out;
    }

    private static List<String> children(Element root, String parent, String name) {
        return elements(root, parent, name).stream().map(e -> e.getTextContent().strip()).toList();
    }

    private static String text(Element e, String name) {
        NodeList l = e.getElementsByTagName(name);
        return l.getLength() == 0 ? null : l.item(0).getTextContent().strip();
    }
}
