package dev.crucible.verifier.monitor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Reads /proc/PID/net/{tcp,tcp6,udp,udp6} and the outbound counters of /proc/PID/net/snmp. */
final class SocketTable {
    private SocketTable() {}

    record Entry(String remoteHex, int remotePort, int state, String inode) {
        /** Not unset, not loopback (127/8, ::1, ::ffff:127.x). */
        boolean remoteIsExternal() {
            if (remoteHex.matches("0+")) return false;
            if (remoteHex.length() == 8) return !remoteHex.endsWith("7F");
            if (remoteHex.equals("00000000000000000000000001000000")) return false;
            return !(remoteHex.startsWith("0000000000000000FFFF0000") && remoteHex.endsWith("7F"));
        }

        String remote() {
            if (remoteHex.length() == 8) {
                StringBuilder b = new StringBuilder();
                for (int i = 3; i >= 0; i--) b.append(Integer.parseInt(remoteHex.substring(2 * i, 2 * i + 2), 16)).append(i > 0 ? "." : "");
                return b + ":" + remotePort;
            }
            return "[" + remoteHex + "]:" + remotePort;
        }

        String stateName() {
            return switch (state) {
                case 1 -> "ESTABLISHED";
                case 2 -> "SYN_SENT";
                case 7 -> "CLOSE/UDP";
                default -> "state " + state;
            };
        }
    }

    static List<Entry> read(Path table) {
        List<Entry> out = new ArrayList<>();
        try {
            List<String> lines = Files.readAllLines(table);
            for (int i = 1; i < lines.size(); i++) {
                String[] f = lines.get(i).trim().split("\\s+");
                if (f.length < 10) continue;
                String[] rem = f[2].split(":");
                out.add(new Entry(rem[0], Integer.parseInt(rem[1], 16), Integer.parseInt(f[3], 16), f[9]));
            }
        } catch (IOException | RuntimeException e) {
            // process gone
        }
        return out;
    }

    /**
     * Packets that found no route (Ip OutNoRoutes + Ip6OutNoRoutes); -1 when unreadable. In a sandbox
     * namespace that has only loopback, every attempt to reach outside (TCP, UDP, DNS) fails routing
     * and counts here, while loopback traffic (a test suite's local server) never does.
     */
    static long outboundAttempts(Path netDir) {
        try {
            long v4 = field(Files.readAllLines(netDir.resolve("snmp")), "Ip:", "OutNoRoutes");
            long v6 = 0;
            Path snmp6 = netDir.resolve("snmp6");
            if (Files.isReadable(snmp6)) {
                for (String l : Files.readAllLines(snmp6)) {
                    String[] f = l.trim().split("\\s+");
                    if (f.length == 2 && f[0].equals("Ip6OutNoRoutes")) v6 = Long.parseLong(f[1]);
                }
            }
            return v4 + v6;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static long field(List<String> lines, String prefix, String name) {
        for (int i = 0; i + 1 < lines.size(); i++) {
            if (lines.get(i).startsWith(prefix) && lines.get(i + 1).startsWith(prefix)) {
                String[] h = lines.get(i).split("\\s+");
                String[] v = lines.get(i + 1).split("\\s+");
                for (int k = 1; k < h.length && k < v.length; k++) if (h[k].equals(name)) return Long.parseLong(v[k]);
            }
        }
        return 0;
    }
}
