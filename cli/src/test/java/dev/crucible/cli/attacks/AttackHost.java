package dev.crucible.cli.attacks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The host side of the agent attacks: things an escaped agent would reach (canary files, Unix sockets
 * under /var/tmp and /tmp, TCP and UDP listeners, a snapshot store) and counters of what reached them.
 * Everything is world-writable or world-readable on purpose, so that when an attack is held it is the
 * sandbox that held it, not file permissions.
 */
final class AttackHost implements AutoCloseable {
    final String nonce = "crucible-attack-" + ProcessHandle.current().pid() + "-" + System.nanoTime() % 100000;
    final Path base = Path.of("/var/tmp", nonce);   // outside /tmp: the sandbox's fresh /tmp must not be what hides it
    final Path hostDir = base.resolve("host");      // canary writes land here if an attack works
    final Path tmpDir = Path.of("/tmp", nonce);     // the host's /tmp, under the sandbox's own
    final Path home = base.resolve("home");         // the CLI's HOME: ~/.cache/crucible/snapshots lives here
    final Path store = home.resolve(".cache/crucible/snapshots");
    final AtomicInteger unixConnections = new AtomicInteger();
    final AtomicInteger tcpConnections = new AtomicInteger();
    final AtomicInteger udpDatagrams = new AtomicInteger();
    final int tcpPort;
    final int udpPort;
    final String hostIp;
    private final List<AutoCloseable> open = Collections.synchronizedList(new ArrayList<>());

    AttackHost() throws IOException {
        for (Path d : List.of(base, hostDir, tmpDir, home, store)) {
            Files.createDirectories(d);
            Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxrwxrwx"));
        }
        for (Path d = store.getParent(); !d.equals(base); d = d.getParent()) {
            Files.setPosixFilePermissions(d, PosixFilePermissions.fromString("rwxrwxrwx"));
        }
        Files.writeString(tmpDir.resolve("canary.txt"), "host /tmp canary\n");
        Files.writeString(store.resolve("canary.txt"), "snapshot store canary\n");
        unixListener(hostDir.resolve("host.sock"));
        unixListener(tmpDir.resolve("host.sock"));
        ServerSocket tcp = new ServerSocket();
        tcp.bind(new InetSocketAddress("0.0.0.0", 0)); // 127.0.0.1 and the host's own address
        tcpPort = tcp.getLocalPort();
        open.add(tcp);
        daemon(() -> {
            while (!tcp.isClosed()) {
                try (Socket s = tcp.accept()) {
                    tcpConnections.incrementAndGet();
                    s.getOutputStream().write("host listener\n".getBytes());
                } catch (IOException closed) {
                    return;
                }
            }
        });
        DatagramSocket udp = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0));
        udpPort = udp.getLocalPort();
        open.add(udp);
        daemon(() -> {
            byte[] b = new byte[256];
            while (!udp.isClosed()) {
                try {
                    DatagramPacket p = new DatagramPacket(b, b.length);
                    udp.receive(p);
                    udpDatagrams.incrementAndGet();
                    udp.send(new DatagramPacket("pong".getBytes(), 4, p.getSocketAddress()));
                } catch (IOException closed) {
                    return;
                }
            }
        });
        hostIp = firstNonLoopbackIpv4();
    }

    private void unixListener(Path path) throws IOException {
        ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        ch.bind(UnixDomainSocketAddress.of(path));
        Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwxrwxrwx"));
        open.add(ch);
        daemon(() -> {
            while (ch.isOpen()) {
                try (SocketChannel c = ch.accept()) {
                    unixConnections.incrementAndGet();
                } catch (IOException closed) {
                    return;
                }
            }
        });
    }

    /** Lines for the agent's .attacks/env.sh: where the host's targets are. */
    String envFile(Path out, Path manifestDir, String hiddenMarker) {
        return String.join("\n",
                "ATTACK_HOST_DIR=" + hostDir, "ATTACK_TMP_DIR=" + tmpDir, "ATTACK_STORE=" + store,
                "ATTACK_TCP_PORT=" + tcpPort, "ATTACK_UDP_PORT=" + udpPort, "ATTACK_HOST_IP=" + (hostIp == null ? "" : hostIp),
                "ATTACK_OUT=" + out, "ATTACK_MANIFEST_DIR=" + manifestDir, "ATTACK_HIDDEN_MARKER=" + hiddenMarker,
                "export ATTACK_HOST_DIR ATTACK_TMP_DIR ATTACK_STORE ATTACK_TCP_PORT ATTACK_UDP_PORT ATTACK_HOST_IP ATTACK_OUT"
                        + " ATTACK_MANIFEST_DIR ATTACK_HIDDEN_MARKER", "");
    }

    /** Files an attack created in the host folder (each one is an escape). */
    List<String> hostWrites() throws IOException {
        try (Stream<Path> s = Files.list(hostDir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> !n.endsWith(".sock")).sorted().toList();
        }
    }

    static String firstNonLoopbackIpv4() {
        try {
            for (NetworkInterface i : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!i.isUp() || i.isLoopback()) continue;
                for (InetAddress a : Collections.list(i.getInetAddresses())) if (a instanceof Inet4Address) return a.getHostAddress();
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }

    private static void daemon(Runnable r) {
        Thread t = new Thread(r, "attack-host-listener");
        t.setDaemon(true);
        t.start();
    }

    @Override
    public void close() throws Exception {
        for (AutoCloseable c : open) c.close();
        delete(base);
        delete(tmpDir);
    }

    static void delete(Path root) throws IOException {
        if (!Files.exists(root)) return;
        if (deepTree(root)) return;
        try (Stream<Path> s = Files.walk(root)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }

    /**
     * A tree an agent nested past PATH_MAX cannot be walked by path: GNU rm, which walks by descriptors and neither follows
     * links nor leaves this file system, removes it. True when rm ran (a tree past 3,072 bytes is found first).
     */
    private static boolean deepTree(Path root) throws IOException {
        boolean[] deep = {false};
        Files.walkFileTree(root, new java.nio.file.SimpleFileVisitor<>() {
            @Override
            public java.nio.file.FileVisitResult preVisitDirectory(Path d, java.nio.file.attribute.BasicFileAttributes a) {
                if (dev.crucible.files.DeepPaths.tooDeep(root.relativize(d))) {
                    deep[0] = true;
                    return java.nio.file.FileVisitResult.TERMINATE;
                }
                return java.nio.file.FileVisitResult.CONTINUE;
            }

            @Override
            public java.nio.file.FileVisitResult visitFileFailed(Path f, IOException e) {
                return java.nio.file.FileVisitResult.CONTINUE;
            }
        });
        if (!deep[0]) return false;
        try {
            new ProcessBuilder("rm", "-rf", "--one-file-system", root.toString()).inheritIO().start().waitFor(300, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return true;
    }
}
