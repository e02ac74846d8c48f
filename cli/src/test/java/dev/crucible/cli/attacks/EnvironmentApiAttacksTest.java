package dev.crucible.cli.attacks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 14: the environment API of an interactive {@code crucible run} (a real CLI process as root) attacked
 * by its own agent (symlinks planted with bash, then file tools that run in the CLI on the host) and by
 * another local user without the token. The agent's side runs inside the sandbox (bash steps); the file
 * tools are the CLI's own code, which is what must not leave the workspace. {@link EnvironmentApiAttacksAsUserTest}
 * runs the same cases with the CLI as the throwaway uid 64123 (setpriv).
 */
@Tag("attacks")
@Timeout(600)
@org.junit.jupiter.api.TestInstance(org.junit.jupiter.api.TestInstance.Lifecycle.PER_CLASS) // one run per class, its user a method
class EnvironmentApiAttacksTest {
    static AttackHost host;
    static Process cli;
    static String base;
    static String token; // interface: read from OUT/api-token (0600); null on code without a token
    static Path out;
    static Integer cliUid; // the CLI's user: null for root
    static final StringBuilder cliOutput = new StringBuilder();
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** The CLI's user for this class's run: null for root ({@link EnvironmentApiAttacksAsUserTest}: the throwaway uid). */
    Integer cliUser() {
        return null;
    }

    @BeforeAll
    void startInteractiveRun() throws Exception {
        start(cliUser());
    }

    /** Starts the interactive run as {@code uid} (null: root); the cases then attack it. */
    static void start(Integer uid) throws Exception {
        CliProcess.assumeRoot(); // root, or to become the throwaway uid
        CliProcess.assumeBubblewrapFor(uid);
        cliUid = uid;
        base = null;
        token = null;
        cliOutput.setLength(0);
        host = new AttackHost();
        out = host.base.resolve("out");
        Path env = AttackFixtures.attackEnvironment(host.base.resolve("env"), "hidden-tests-api", "");
        Files.writeString(env.resolve("rollout.yaml"), """
                apiVersion: crucible.dev/v1alpha1
                kind: Rollout
                metadata:
                  name: api-attacks
                spec:
                  environmentRef:
                    name: calc-divide-bugfix
                  mode: interactive
                  limits:
                    maxDurationSeconds: 240
                """);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>();
        if (uid != null) {
            CliProcess.chown(env, uid);
            cmd.addAll(List.of("setpriv", "--reuid=" + uid, "--regid=" + uid, "--clear-groups", "env", "HOME=" + host.home,
                    "PATH=/usr/local/bin:/usr/bin:/bin")); // the pyenv shims under /root are unreadable for this uid
        }
        cmd.addAll(List.of(java, "-Xmx512m", "-cp", CliProcess.BEFORE != null ? CliProcess.BEFORE : uid == null ? System.getProperty("java.class.path")
                : CliProcess.readableClasspath(), "dev.crucible.cli.Main", "run", "-f", env.toString(), "--out", out.toString(), "--port", "0"));
        cli = new ProcessBuilder(cmd).directory(host.home.toFile()).redirectErrorStream(true).start();
        BufferedReader r = new BufferedReader(new InputStreamReader(cli.getInputStream(), StandardCharsets.UTF_8));
        Pattern endpoint = Pattern.compile("environment API on (http://127\\.0\\.0\\.1:\\d+)");
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(300); // setup took 88 s to its sandbox line at load 60
        String line;
        while (base == null && System.nanoTime() < until && (line = r.readLine()) != null) {
            cliOutput.append(line).append('\n');
            Matcher m = endpoint.matcher(line);
            if (m.find()) base = m.group(1);
        }
        assertThat(base).as("the CLI never printed its endpoint:\n" + cliOutput).isNotNull();
        Thread drain = new Thread(() -> r.lines().forEach(l -> cliOutput.append(l).append('\n')));
        drain.setDaemon(true);
        drain.start();
        Path tokenFile = out.resolve("api-token"); // interface: token file name in the attempt folder
        for (int i = 0; i < 50 && !Files.exists(tokenFile); i++) Thread.sleep(100);
        if (Files.exists(tokenFile)) token = Files.readString(tokenFile).strip();
    }

    @AfterAll
    static void stop() throws Exception {
        if (cli != null) {
            cli.destroy();
            if (!cli.waitFor(30, TimeUnit.SECONDS)) cli.destroyForcibly();
        }
        if (host != null) host.close();
    }

    HttpResponse<String> post(String path, Object body, boolean withToken) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60))
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(new ObjectMapper().writeValueAsString(body)));
        if (withToken && token != null) b.header("Authorization", "Bearer " + token); // interface: bearer header
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> step(String tool, Map<String, Object> args) throws Exception {
        return post("/v1/step", Map.of("tool", tool, "args", args), true);
    }

    /**
     * {@code p} as this JVM can read it: without root the CLI's workspace is on a tmpfs in its own mount namespace
     * ({@code MountNamespace}), seen from here through /proc/PID/root of a process in it (the CLI run again there).
     */
    static Path hostView(Path p) throws Exception {
        if (cliUid == null) return p;
        Path ours = Files.readSymbolicLink(Path.of("/proc/self/ns/mnt"));
        for (ProcessHandle h : cli.descendants().toList()) {
            try {
                if (!Files.readSymbolicLink(Path.of("/proc/" + h.pid() + "/ns/mnt")).equals(ours)) {
                    return Path.of("/proc/" + h.pid() + "/root" + p);
                }
            } catch (java.io.IOException gone) {
                // ended meanwhile
            }
        }
        return p; // no namespace of its own (none could be made): the path is the host's
    }

    synchronized void reset() throws Exception {
        HttpResponse<String> r = post("/v1/reset", Map.of(), true);
        assertThat(r.statusCode()).as("reset with the token: " + r.body() + "\n" + cliOutput).isEqualTo(200);
    }

    /** A file tool call that must not write {@code target}: refused (400, or a tool error) and nothing on the host. */
    void assertWriteRefused(HttpResponse<String> r, Path target) throws Exception {
        assertThat(Files.exists(target, java.nio.file.LinkOption.NOFOLLOW_LINKS)).as("host file " + target + " written; response "
                + r.statusCode() + " " + r.body()).isFalse();
        boolean refused = r.statusCode() == 400 || (r.statusCode() == 200 && new ObjectMapper().readTree(r.body()).path("exitCode").asInt() != 0);
        assertThat(refused).as("the call must be refused: " + r.statusCode() + " " + r.body()).isTrue();
    }

    // Attack: write_file through a dangling symlink the agent planted (ln -s /host/x dang): creates a host file.
    // Must hold: the link is refused and the host file is never created.
    @Test
    void writeFileThroughADanglingSymlinkIsRefused() throws Exception {
        reset();
        Path target = host.hostDir.resolve("dangling-target");
        HttpResponse<String> ln = step("bash", Map.of("command", "ln -s " + target + " dang && echo planted"));
        assertThat(ln.body()).contains("planted");
        assertWriteRefused(step("write_file", Map.of("path", "dang", "content", "pwned")), target);
    }

    // Attack: write_file through a symlinked intermediate folder (ln -s /host linkdir; write linkdir/x).
    // Must hold: refused; nothing is created in the host folder.
    @Test
    void writeFileThroughASymlinkedFolderIsRefused() throws Exception {
        reset();
        HttpResponse<String> ln = step("bash", Map.of("command", "ln -s " + host.hostDir + " linkdir && echo planted"));
        assertThat(ln.body()).contains("planted");
        assertWriteRefused(step("write_file", Map.of("path", "linkdir/through-folder", "content", "pwned")),
                host.hostDir.resolve("through-folder"));
        assertWriteRefused(step("write_file", Map.of("path", "linkdir/new/deeper", "content", "pwned")), host.hostDir.resolve("new"));
    }

    // Attack: a bash step leaves processes behind: one in the background, one that double-forked into a session of its own.
    // Must hold: once the step's response has come, none is left (the files they append to stop growing), whether the
    // executor swept /proc for them or the box's empty cgroup proved there was nothing to sweep.
    @Test
    void aStepLeavesNoProcessBehind() throws Exception {
        HttpResponse<String> r = post("/v1/reset", Map.of(), true);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        Path ws = hostView(Path.of(new ObjectMapper().readTree(r.body()).path("workspace").asText()));
        HttpResponse<String> s = step("bash", Map.of("command", "(setsid sh -c 'while :; do echo beat >> beat.log; sleep 0.05; done' &); "
                + "(while :; do echo bg >> bg.log; sleep 0.05; done) & sleep 0.5; echo spawned"));
        assertThat(s.body()).contains("spawned");
        long beat = Files.size(ws.resolve("beat.log"));
        long bg = Files.size(ws.resolve("bg.log"));
        assertThat(beat).as("the setsid'd writer ran").isPositive();
        assertThat(bg).as("the background writer ran").isPositive();
        Thread.sleep(1500);
        assertThat(Files.size(ws.resolve("beat.log"))).as("the setsid'd writer outlived its step").isEqualTo(beat);
        assertThat(Files.size(ws.resolve("bg.log"))).as("the background writer outlived its step").isEqualTo(bg);
    }

    // Attack: a step signals everything it can in its box, the episode's exec server (the box's PID 1) included.
    // Must hold: the server is out of its reach, and the next step runs confined (no capability) in the same box.
    @Test
    void aStepCannotKillTheBoxsExecServer() throws Exception {
        reset();
        HttpResponse<String> k = step("bash", Map.of("command", "kill -9 -1; kill -9 1; pkill -9 python3; sleep 1; echo survived"));
        assertThat(k.statusCode()).as(k.body()).isEqualTo(200);
        assertThat(k.body()).contains("survived").doesNotContain("box ended");
        HttpResponse<String> next = step("bash", Map.of("command", "grep CapEff /proc/self/status; echo next"));
        assertThat(next.body()).as(next.body()).contains("next").contains("0000000000000000");
        assertThat(new ObjectMapper().readTree(next.body()).path("exitCode").asInt()).isZero();
    }

    // Attack: a NUL byte in a tool path (InvalidPathException inside the server).
    // Must hold: 400 naming args.path, never 500.
    @Test
    void aNulByteInAPathIsA400() throws Exception {
        reset();
        for (String tool : List.of("write_file", "read_file", "edit", "list")) {
            HttpResponse<String> r = step(tool, Map.of("path", "calc/ops\u0000.py", "content", "x", "old_str", "a", "new_str", "b"));
            assertThat(r.statusCode()).as(tool + ": " + r.body()).isEqualTo(400);
            assertThat(r.body()).as(tool).contains("path");
        }
    }

    // Attack: `..` and absolute paths out of the workspace.
    // Must hold: 400 naming args.path; nothing written on the host.
    @Test
    void dotDotAndAbsolutePathsAre400() throws Exception {
        reset();
        Path abs = host.hostDir.resolve("absolute");
        HttpResponse<String> a = step("write_file", Map.of("path", abs.toString(), "content", "pwned"));
        assertThat(a.statusCode()).as(a.body()).isEqualTo(400);
        assertThat(abs).doesNotExist();
        String dots = "../".repeat(12) + host.hostDir.toString().substring(1) + "/dotdot";
        HttpResponse<String> d = step("write_file", Map.of("path", dots, "content", "pwned"));
        assertThat(d.statusCode()).as(d.body()).isEqualTo(400);
        assertThat(host.hostDir.resolve("dotdot")).doesNotExist();
        HttpResponse<String> read = step("read_file", Map.of("path", "../../../../../../etc/passwd"));
        assertThat(read.statusCode()).as(read.body()).isEqualTo(400);
        assertThat(read.body()).doesNotContain("root:x:0");
    }

    // Attack: another local user (a throwaway uid; 64124 when the CLI is 64123) drives the CLI's API without the token and runs `id`.
    // Must hold: every endpoint but /healthz answers 401 without the token; the token file is 0600.
    @Test
    void anotherLocalUserWithoutTheTokenIsRefused() throws Exception {
        List<String> codes = new ArrayList<>();
        // not /v1/verify: it would end the run the other tests use
        for (String call : List.of("POST /v1/step", "POST /v1/reset", "GET /v1/findings")) {
            String[] mp = call.split(" ");
            int other = cliUid == null ? CliProcess.THROWAWAY_UID : cliUid + 1;
            List<String> curl = new ArrayList<>(List.of("setpriv", "--reuid=" + other, "--regid=" + other,
                    "--clear-groups", "/usr/bin/curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-m", "30", "-X", mp[0]));
            if (mp[0].equals("POST")) curl.addAll(List.of("-H", "content-type: application/json", "-d", "{\"tool\":\"bash\",\"args\":{\"command\":\"id\"}}"));
            curl.add(base + mp[1]);
            Process p = new ProcessBuilder(curl).redirectErrorStream(true).start();
            codes.add(mp[1] + "=" + new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip());
            p.waitFor(40, TimeUnit.SECONDS);
        }
        assertThat(codes).as("status codes for a caller without the token").containsExactly("/v1/step=401", "/v1/reset=401", "/v1/findings=401");
        Path tokenFile = out.resolve("api-token"); // interface: token file name
        assertThat(tokenFile).as("the CLI writes its API token to a file").exists();
        assertThat(Files.getPosixFilePermissions(tokenFile)).containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        // issue 34: standard output (often a 0644 log) names the file, never the token
        assertThat(cliOutput.toString()).as("the token is not printed").doesNotContain(Files.readString(tokenFile).strip()).contains(tokenFile.toString());
    }

    // Must hold: the same user without the header is refused too (the token is required always, not only across users).
    @Test
    void noTokenNoStep() throws Exception {
        HttpResponse<String> r = post("/v1/step", Map.of("tool", "bash", "args", Map.of("command", "id")), false);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(401);
        assertThat(r.body()).doesNotContain("uid=");
    }
}
