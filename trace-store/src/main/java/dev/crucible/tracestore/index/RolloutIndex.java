package dev.crucible.tracestore.index;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The index of stored rollouts, in an embedded H2 database on the store's volume ({@code index/rollouts.mv.db}). A row
 * is made when a rollout's first segment comes (namespace, name, uid, environment and labels from its Rollout); its
 * phase, reward and detectors follow from the {@code outcome} and {@code finding} events as they are appended.
 * Filters use B-tree indexes on each column and on (detector), (label key, value); newest first.
 */
public final class RolloutIndex implements AutoCloseable {
    private final Connection db;

    public RolloutIndex(Path dir) throws SQLException {
        db = DriverManager.getConnection("jdbc:h2:file:" + dir.resolve("index").resolve("rollouts").toAbsolutePath()
                + ";DB_CLOSE_ON_EXIT=FALSE;OPTIMIZE_REUSE_RESULTS=0", "sa", ""); // no cached answers: each filter is measured as asked
        try (Statement s = db.createStatement()) {
            s.execute("""
                    CREATE TABLE IF NOT EXISTS rollout(id BIGINT AUTO_INCREMENT PRIMARY KEY,
                      namespace VARCHAR(63) NOT NULL, name VARCHAR(253) NOT NULL, uid VARCHAR(64), environment VARCHAR(253),
                      phase VARCHAR(32), reward DOUBLE PRECISION, created BIGINT NOT NULL, updated BIGINT NOT NULL,
                      bytes BIGINT DEFAULT 0 NOT NULL, events BIGINT DEFAULT 0 NOT NULL, ended BOOLEAN DEFAULT FALSE NOT NULL,
                      UNIQUE(namespace, name))""");
            s.execute("CREATE TABLE IF NOT EXISTS detector(rollout BIGINT NOT NULL, name VARCHAR(128) NOT NULL, PRIMARY KEY(rollout, name))");
            s.execute("CREATE TABLE IF NOT EXISTS label(rollout BIGINT NOT NULL, k VARCHAR(317) NOT NULL, v VARCHAR(63) NOT NULL, PRIMARY KEY(rollout, k))");
            // Each ends in (created, id): the order of every answer, so a filter reads its first `limit` matches
            // off the index instead of sorting all of them.
            for (String ix : List.of("rollout(created DESC, id DESC)", "rollout(updated)", "rollout(environment, created DESC, id DESC)",
                    "rollout(phase, created DESC, id DESC)", "rollout(namespace, created DESC, id DESC)", "rollout(reward)",
                    "detector(name, rollout)", "label(k, v, rollout)")) {
                s.execute("CREATE INDEX IF NOT EXISTS ix_" + ix.replace(" DESC", "").replaceAll("\\W+", "_") + " ON " + ix);
            }
        }
    }

    /** Adds the rollout when it is not there; true when it was added. */
    public synchronized boolean register(String ns, String name, String uid, String environment, Map<String, String> labels,
                                         Instant created) throws SQLException {
        if (id(ns, name) != null) return false;
        try (PreparedStatement p = db.prepareStatement("INSERT INTO rollout(namespace, name, uid, environment, created, updated)"
                + " VALUES(?,?,?,?,?,?)", Statement.RETURN_GENERATED_KEYS)) {
            p.setString(1, ns);
            p.setString(2, name);
            p.setString(3, uid);
            p.setString(4, environment);
            p.setLong(5, created.toEpochMilli());
            p.setLong(6, created.toEpochMilli());
            p.executeUpdate();
            try (ResultSet k = p.getGeneratedKeys()) {
                k.next();
                long id = k.getLong(1);
                try (PreparedStatement l = db.prepareStatement("INSERT INTO label(rollout, k, v) VALUES(?,?,?)")) {
                    for (var e : labels.entrySet()) {
                        l.setLong(1, id);
                        l.setString(2, e.getKey());
                        l.setString(3, e.getValue());
                        l.addBatch();
                    }
                    l.executeBatch();
                }
            }
        }
        return true;
    }

    public synchronized boolean contains(String ns, String name) throws SQLException {
        return id(ns, name) != null;
    }

    /** Counts {@code bytes} more for the rollout and reads phase, reward and detectors off {@code events}. */
    public synchronized void applied(String ns, String name, long bytes, List<JsonNode> events, Instant now) throws SQLException {
        Long id = id(ns, name);
        if (id == null) return;
        try (PreparedStatement p = db.prepareStatement("UPDATE rollout SET bytes = bytes + ?, events = events + ?, updated = ? WHERE id = ?")) {
            p.setLong(1, bytes);
            p.setLong(2, events.size());
            p.setLong(3, now.toEpochMilli());
            p.setLong(4, id);
            p.executeUpdate();
        }
        for (JsonNode e : events) {
            JsonNode d = e.path("data");
            switch (e.path("kind").asText()) {
                case "finding" -> {
                    String det = d.path("detector").asText("");
                    if (det.isEmpty() || det.length() > 128) continue;
                    try (PreparedStatement p = db.prepareStatement("MERGE INTO detector(rollout, name) KEY(rollout, name) VALUES(?,?)")) {
                        p.setLong(1, id);
                        p.setString(2, det);
                        p.executeUpdate();
                    }
                }
                case "outcome" -> {
                    try (PreparedStatement p = db.prepareStatement("UPDATE rollout SET phase = ?, reward = ?, ended = TRUE WHERE id = ?")) {
                        String phase = d.path("phase").asText(null);
                        p.setString(1, phase == null || phase.length() > 32 ? null : phase);
                        if (d.path("reward").isNumber()) p.setDouble(2, d.path("reward").asDouble());
                        else p.setNull(2, Types.DOUBLE);
                        p.setLong(3, id);
                        p.executeUpdate();
                    }
                }
                default -> { }
            }
        }
    }

    /** True when no rollout is indexed: a new index, or one whose file was lost. */
    public synchronized boolean isEmpty() throws SQLException {
        try (Statement s = db.createStatement(); ResultSet r = s.executeQuery("SELECT COUNT(*) FROM rollout")) {
            r.next();
            return r.getLong(1) == 0;
        }
    }

    public synchronized long totalBytes() throws SQLException {
        try (Statement s = db.createStatement(); ResultSet r = s.executeQuery("SELECT COALESCE(SUM(bytes), 0) FROM rollout")) {
            r.next();
            return r.getLong(1);
        }
    }

    /** The bytes of every ended rollout but {@code ns/name}: what size retention could free for its write. */
    public synchronized long endedBytesExcept(String ns, String name) throws SQLException {
        try (PreparedStatement p = db.prepareStatement(
                "SELECT COALESCE(SUM(bytes), 0) FROM rollout WHERE ended AND NOT (namespace = ? AND name = ?)")) {
            p.setString(1, ns);
            p.setString(2, name);
            try (ResultSet r = p.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        }
    }

    /** A rollout as {namespace, name} with its bytes, for retention. */
    public record Key(String namespace, String name, long bytes) {}

    /** Rollouts whose last write is before {@code cutoff}. */
    public synchronized List<Key> lastWrittenBefore(Instant cutoff) throws SQLException {
        return keys("SELECT namespace, name, bytes FROM rollout WHERE updated < ? ORDER BY updated", cutoff.toEpochMilli());
    }

    /** Ended rollouts, least recently written first: what size retention removes first. */
    public synchronized List<Key> endedOldestFirst(int max) throws SQLException {
        return keys("SELECT namespace, name, bytes FROM rollout WHERE ended ORDER BY updated LIMIT " + max, null);
    }

    private List<Key> keys(String sql, Long arg) throws SQLException {
        try (PreparedStatement p = db.prepareStatement(sql)) {
            if (arg != null) p.setLong(1, arg);
            List<Key> out = new ArrayList<>();
            try (ResultSet r = p.executeQuery()) {
                while (r.next()) out.add(new Key(r.getString(1), r.getString(2), r.getLong(3)));
            }
            return out;
        }
    }

    public synchronized void delete(String ns, String name) throws SQLException {
        Long id = id(ns, name);
        if (id == null) return;
        for (String t : List.of("DELETE FROM detector WHERE rollout = ?", "DELETE FROM label WHERE rollout = ?", "DELETE FROM rollout WHERE id = ?")) {
            try (PreparedStatement p = db.prepareStatement(t)) {
                p.setLong(1, id);
                p.executeUpdate();
            }
        }
    }

    public synchronized List<String> namespaces() throws SQLException {
        List<String> out = new ArrayList<>();
        try (Statement s = db.createStatement(); ResultSet r = s.executeQuery("SELECT DISTINCT namespace FROM rollout ORDER BY namespace")) {
            while (r.next()) out.add(r.getString(1));
        }
        return out;
    }

    public synchronized List<RolloutRow> query(RolloutFilter f) throws SQLException {
        // A detector or a label is a join (one row per rollout at most: they are the tables' keys), so the planner can
        // start from its index; as EXISTS it walked the rollouts newest first and probed each.
        StringBuilder sql = new StringBuilder("SELECT r.id, namespace, r.name, uid, environment, phase, reward, created, updated, bytes, events, ended FROM rollout r");
        List<Object> args = new ArrayList<>();
        if (f.detector() != null) {
            sql.append(" JOIN detector d ON d.rollout = r.id AND d.name = ?");
            args.add(f.detector());
        }
        int n = 0;
        for (var l : f.labels().entrySet()) {
            String a = "l" + n++;
            sql.append(" JOIN label ").append(a).append(" ON ").append(a).append(".rollout = r.id AND ").append(a).append(".k = ? AND ")
                    .append(a).append(".v = ?");
            args.add(l.getKey());
            args.add(l.getValue());
        }
        sql.append(" WHERE 1=1");
        if (f.namespaces() != null) {
            if (f.namespaces().isEmpty()) return List.of();
            sql.append(" AND namespace IN (").append("?,".repeat(f.namespaces().size() - 1)).append("?)");
            args.addAll(new TreeSet<>(f.namespaces()));
        }
        where(sql, args, " AND r.name = ?", f.name());
        where(sql, args, " AND environment = ?", f.environment());
        where(sql, args, " AND phase = ?", f.phase());
        where(sql, args, " AND reward >= ?", f.minReward());
        where(sql, args, " AND reward <= ?", f.maxReward());
        where(sql, args, " AND created >= ?", f.since() == null ? null : f.since().toEpochMilli());
        where(sql, args, " AND created < ?", f.until() == null ? null : f.until().toEpochMilli());
        // A column that the filter fixes, named first in ORDER BY, changes no order but lets H2 read the first `limit`
        // rows off that column's (column, created DESC, id DESC) index instead of reading every match and sorting.
        String lead = f.environment() != null ? "environment, " : f.phase() != null ? "phase, "
                : f.namespaces() != null && f.namespaces().size() == 1 ? "namespace, " : "";
        sql.append(" ORDER BY ").append(lead).append("created DESC, r.id DESC LIMIT ").append(f.limit());
        Map<Long, Object[]> rows = new LinkedHashMap<>();
        try (PreparedStatement p = db.prepareStatement(sql.toString())) {
            for (int i = 0; i < args.size(); i++) p.setObject(i + 1, args.get(i));
            try (ResultSet r = p.executeQuery()) {
                while (r.next()) {
                    Object[] row = new Object[12];
                    for (int i = 0; i < 12; i++) row[i] = r.getObject(i + 1);
                    rows.put(r.getLong(1), row);
                }
            }
        }
        Map<Long, List<String>> dets = new LinkedHashMap<>();
        Map<Long, Map<String, String>> labels = new LinkedHashMap<>();
        if (!rows.isEmpty()) {
            String in = " IN (" + "?,".repeat(rows.size() - 1) + "?) ORDER BY 1, 2";
            side("SELECT rollout, name, name FROM detector WHERE rollout" + in, rows.keySet(),
                    (id, k, v) -> dets.computeIfAbsent(id, x -> new ArrayList<>()).add(k));
            side("SELECT rollout, k, v FROM label WHERE rollout" + in, rows.keySet(),
                    (id, k, v) -> labels.computeIfAbsent(id, x -> new LinkedHashMap<>()).put(k, v));
        }
        List<RolloutRow> out = new ArrayList<>();
        for (var e : rows.entrySet()) {
            Object[] r = e.getValue();
            out.add(new RolloutRow((String) r[1], (String) r[2], (String) r[3], (String) r[4], (String) r[5],
                    r[6] == null ? null : ((Number) r[6]).doubleValue(), dets.getOrDefault(e.getKey(), List.of()),
                    labels.getOrDefault(e.getKey(), Map.of()), Instant.ofEpochMilli(((Number) r[7]).longValue()).toString(),
                    Instant.ofEpochMilli(((Number) r[8]).longValue()).toString(), ((Number) r[9]).longValue(),
                    ((Number) r[10]).longValue(), (Boolean) r[11]));
        }
        return out;
    }

    private interface Side { void row(long id, String k, String v); }

    private void side(String sql, Iterable<Long> ids, Side sink) throws SQLException {
        try (PreparedStatement p = db.prepareStatement(sql)) {
            int i = 1;
            for (long id : ids) p.setLong(i++, id);
            try (ResultSet r = p.executeQuery()) {
                while (r.next()) sink.row(r.getLong(1), r.getString(2), r.getString(3));
            }
        }
    }

    private static void where(StringBuilder sql, List<Object> args, String clause, Object value) {
        if (value == null) return;
        sql.append(clause);
        args.add(value);
    }

    private Long id(String ns, String name) throws SQLException {
        try (PreparedStatement p = db.prepareStatement("SELECT id FROM rollout WHERE namespace = ? AND name = ?")) {
            p.setString(1, ns);
            p.setString(2, name);
            try (ResultSet r = p.executeQuery()) {
                return r.next() ? r.getLong(1) : null;
            }
        }
    }

    @Override
    public synchronized void close() throws SQLException {
        db.close();
    }
}
