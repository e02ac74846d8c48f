package dev.crucible.verifier.toolchain;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A pinned Go release through the Go module proxy's {@code golang.org/toolchain} modules: the
 * installed go fetches it into the prefix's module cache when {@code GOTOOLCHAIN=goX.Y.Z}, once per
 * environment; later phases find it there without the network.
 */
final class GoToolchains {
    private GoToolchains() {}

    static ExecEnvironment provision(ExecEnvironment e, ToolchainResolver.Choice c, StringBuilder log) throws IOException {
        String release = c.goToolchain();
        if (release.endsWith(".x")) {
            Optional<String> proxy = proxy(e, c.bin().get(0).resolve("go").toString());
            if (proxy.isEmpty()) return fallback(e, c, "no Go module proxy is configured (GOPROXY, or `go env GOPROXY`, names no http(s) proxy)");
            Optional<String> newest = newestPatch(release.substring(2, release.length() - 2), proxy.get());
            if (newest.isEmpty()) return fallback(e, c, "no release of go " + c.wanted() + " is listed by the Go module proxy");
            release = "go" + newest.get();
        }
        e = e.withVar("GOTOOLCHAIN", release);
        GoToolchainCache.restore(e, release, log); // fetched once per machine: another environment's copy
        ExecEnvironments.Out o = ExecEnvironments.run(List.of(c.bin().get(0).resolve("go").toString(), "version"), e.forSetup(), e.prefix(), Duration.ofMinutes(10));
        log.append("$ GOTOOLCHAIN=").append(release).append(" go version   (fetches the release through the Go module proxy once)\n").append(o.text());
        if (o.code() != 0 || !o.text().contains(release + " ")) return fallback(e, c, "fetching " + release + " failed: " + o.tail());
        GoToolchainCache.keep(e, release, log);
        return e;
    }

    private static ExecEnvironment fallback(ExecEnvironment e, ToolchainResolver.Choice c, String why) {
        return e.withVar("GOTOOLCHAIN", "local").withWarning("go " + c.wanted() + ": " + why + "; used the installed go instead");
    }

    /**
     * The Go module proxy as this machine's Go is configured: GOPROXY in the environment, else what the
     * installed go reports ({@code go env GOPROXY}: its env file, else its built-in default). Never a
     * host written here, so a user behind a company mirror gets their mirror.
     */
    static Optional<String> proxy(ExecEnvironment e, String go) {
        String p = e.vars().getOrDefault("GOPROXY", System.getenv().getOrDefault("GOPROXY", ""));
        if (p.isBlank()) {
            try {
                // GOTOOLCHAIN=local: the choice's own value is still "go1.25.x" here, which go refuses ("invalid GOTOOLCHAIN",
                // exit 1): lazygit's go 1.25.x was reported as "no Go module proxy is configured" although go names one
                java.util.Map<String, String> env = new java.util.HashMap<>(e.forSetup());
                env.put("GOTOOLCHAIN", "local");
                ExecEnvironments.Out o = ExecEnvironments.run(List.of(go, "env", "GOPROXY"), env, e.prefix(), Duration.ofSeconds(30));
                if (o.code() == 0) p = o.text().strip();
            } catch (IOException ex) {
                return Optional.empty();
            }
        }
        return firstHttp(p);
    }

    /** The first http(s) entry of a GOPROXY list ("off", "direct" and file:// entries are not a proxy to list). */
    static Optional<String> firstHttp(String goproxy) {
        for (String s : goproxy.split("[,|]")) {
            s = s.strip();
            if (s.startsWith("https://") || s.startsWith("http://")) return Optional.of(s.replaceFirst("/$", ""));
        }
        return Optional.empty();
    }

    /** The newest X.Y.Z of {@code minor} ("1.22") the proxy lists for this machine. */
    static Optional<String> newestPatch(String minor, String proxy) {
        String arch = System.getProperty("os.arch").equals("aarch64") ? "arm64" : "amd64";
        try {
            HttpResponse<String> r = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NORMAL).build()
                    .send(HttpRequest.newBuilder(URI.create(proxy + "/golang.org/toolchain/@v/list")).timeout(Duration.ofSeconds(30)).build(),
                            HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) return Optional.empty();
            Pattern p = Pattern.compile("v0\\.0\\.1-go(" + Pattern.quote(minor) + "\\.(\\d+))\\.linux-" + arch);
            return r.body().lines().map(p::matcher).filter(Matcher::matches)
                    .max(java.util.Comparator.comparingInt(m -> Integer.parseInt(m.group(2)))).map(m -> m.group(1));
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
