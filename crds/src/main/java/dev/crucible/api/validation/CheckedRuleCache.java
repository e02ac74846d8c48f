package dev.crucible.api.validation;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelProtoAbstractSyntaxTree;
import dev.cel.expr.CheckedExpr;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A CRD's CEL rules, parsed and type-checked, on disk: one file per CRD content (its SHA-256), holding
 * each rule's CheckedExpr protobuf. Parsing and checking dominate the start of a one-file
 * {@code crucible validate}; turning a stored CheckedExpr back into an AST costs a fraction of it, and
 * the program made from it is the one compiling would make. A changed CRD has another digest, so a
 * stale file is never read; an unreadable one is ignored and rewritten.
 */
final class CheckedRuleCache {

    /** Bumped when the compile environment in {@link CelRules} or the cel-java version changes. */
    static final String FORMAT = "cel-java-0.14.0-dyn-self-v1";

    private final Path dir;

    CheckedRuleCache(Path dir) {
        this.dir = dir;
    }

    Path file(String crdDigest) {
        return dir.resolve("rules-" + crdDigest.substring(0, 32) + ".bin");
    }

    /** The stored rules of a CRD (expression → serialized CheckedExpr), or null when absent or unreadable. */
    Map<String, byte[]> read(String crdDigest) {
        Path file = file(crdDigest);
        if (!Files.isRegularFile(file)) {
            return null;
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(Files.readAllBytes(file)))) {
            if (!FORMAT.equals(in.readUTF()) || !crdDigest.equals(in.readUTF())) {
                return null;
            }
            int n = in.readInt();
            Map<String, byte[]> rules = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                String expr = in.readUTF();
                byte[] ast = new byte[in.readInt()];
                in.readFully(ast);
                rules.put(expr, ast);
            }
            return rules;
        } catch (IOException | RuntimeException e) {
            return null; // a torn or foreign file: compile again
        }
    }

    /** Stores the checked rules of a CRD; best effort (a read-only cache only costs the compile next time). */
    void write(String crdDigest, Map<String, CelAbstractSyntaxTree> checked) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            try (DataOutputStream out = new DataOutputStream(bytes)) {
                out.writeUTF(FORMAT);
                out.writeUTF(crdDigest);
                out.writeInt(checked.size());
                for (Map.Entry<String, CelAbstractSyntaxTree> e : checked.entrySet()) {
                    byte[] ast = CelProtoAbstractSyntaxTree.fromCelAst(e.getValue()).toCheckedExpr().toByteArray();
                    out.writeUTF(e.getKey());
                    out.writeInt(ast.length);
                    out.write(ast);
                }
            }
            Files.createDirectories(dir);
            // Written aside and moved into place: two first runs at once never read a half-written file.
            Path tmp = Files.createTempFile(dir, "rules-", ".tmp");
            try {
                Files.write(tmp, bytes.toByteArray());
                try {
                    Files.move(tmp, file(crdDigest), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, file(crdDigest), StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException | RuntimeException e) {
            // not cached; validation is unaffected
        }
    }

    static CelAbstractSyntaxTree ast(byte[] checkedExpr) throws IOException {
        return CelProtoAbstractSyntaxTree.fromCheckedExpr(CheckedExpr.parseFrom(checkedExpr)).getAst();
    }
}
