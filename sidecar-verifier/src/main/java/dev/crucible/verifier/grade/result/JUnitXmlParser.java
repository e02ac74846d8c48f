package dev.crucible.verifier.grade.result;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * Parses JUnit XML (pytest's xunit1/xunit2, Maven Surefire, most other runners). Test ids follow
 * pytest node ids when the runner is pytest ({@code tests/test_x.py::Class::test}); otherwise
 * {@code classname::name}. Entities and DTDs are refused: the file may come from untrusted code.
 */
public final class JUnitXmlParser {
    private JUnitXmlParser() {}

    public static List<TestCase> parse(Path file, boolean pytestIds) throws IOException {
        return parse(Files.readAllBytes(file), pytestIds);
    }

    public static List<TestCase> parse(byte[] xml, boolean pytestIds) throws IOException {
        Document doc;
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            f.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            f.setXIncludeAware(false);
            f.setExpandEntityReferences(false);
            DocumentBuilder b = f.newDocumentBuilder();
            b.setErrorHandler(null);
            doc = b.parse(new ByteArrayInputStream(xml));
        } catch (ParserConfigurationException | SAXException e) {
            throw new IOException("not valid JUnit XML: " + e.getMessage(), e);
        }
        List<TestCase> out = new ArrayList<>();
        NodeList cases = doc.getElementsByTagName("testcase");
        for (int i = 0; i < cases.getLength(); i++) {
            Element tc = (Element) cases.item(i);
            out.add(new TestCase(id(tc, pytestIds), status(tc), null, millis(tc.getAttribute("time")), message(tc)));
        }
        return out;
    }

    static String id(Element tc, boolean pytestIds) {
        String cls = tc.getAttribute("classname");
        String name = tc.getAttribute("name");
        if (!pytestIds) return cls.isEmpty() ? name : cls + "::" + name;
        String file = tc.getAttribute("file");
        if (cls.isEmpty()) return name; // pytest collection errors carry the module in name only
        String[] parts = cls.split("\\.");
        String module = file.replaceAll("\\.py$", "").replace('/', '.');
        if (!file.isEmpty() && (cls.equals(module) || cls.startsWith(module + "."))) {
            // xunit1: classname = module path with dots, then classes; the module part matches the file.
            String rest = cls.equals(module) ? "" : cls.substring(module.length() + 1);
            return file + (rest.isEmpty() ? "" : "::" + rest.replace(".", "::")) + "::" + name;
        }
        // `file` is where the test function is defined, which for a method inherited from a mixin in another
        // module (cachetools' tests/__init__.py) is not the test's module: the classname, built from the node id, is.
        // xunit2 has no file attribute either: classes start with an upper-case letter by pytest convention.
        int k = parts.length;
        while (k > 1 && Character.isUpperCase(parts[k - 1].charAt(0))) k--;
        StringBuilder sb = new StringBuilder(String.join("/", java.util.Arrays.copyOfRange(parts, 0, k))).append(".py");
        for (int j = k; j < parts.length; j++) sb.append("::").append(parts[j]);
        return sb.append("::").append(name).toString();
    }

    static TestStatus status(Element tc) {
        Element skipped = child(tc, "skipped");
        if (skipped != null) return skipped.getAttribute("type").equals("pytest.xfail") ? TestStatus.XFAILED : TestStatus.SKIPPED;
        if (child(tc, "error") != null) return TestStatus.ERROR;
        if (child(tc, "failure") != null) return TestStatus.FAILED;
        return TestStatus.PASSED;
    }

    static String message(Element tc) {
        for (String tag : new String[] {"failure", "error", "skipped"}) {
            Element e = child(tc, tag);
            if (e != null) {
                String m = e.getAttribute("message");
                if (m.isEmpty()) m = e.getTextContent();
                return m.length() > 500 ? m.substring(0, 500) + "…" : m;
            }
        }
        return null;
    }

    private static Element child(Element e, String tag) {
        for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element c && c.getTagName().equals(tag)) return c;
        }
        return null;
    }

    private static Long millis(String seconds) {
        try {
            return seconds.isEmpty() ? null : Math.round(Double.parseDouble(seconds) * 1000);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
