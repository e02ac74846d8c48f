package dev.crucible.e2e.chart;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * operator.jvmOptions reaches the operator container as JAVA_TOOL_OPTIONS, and the memory limit leaves
 * room above the heap cap those options give (operator/README.md, "JVM options").
 */
class ChartJvmOptionsTest {

    static final long MIB = 1024 * 1024;
    /** The live set of 10,000 Rollouts the heap must hold (issue 18's target). */
    static final long HEAP_FOR_LIVE_SET = 512 * MIB;
    /** Metaspace (~90 MiB for Quarkus + Fabric8), code cache, thread stacks, Netty's direct buffers. */
    static final long NON_HEAP_ROOM = 256 * MIB;

    static Container operator(Map<String, Object> values) {
        return StrictDecoding.decode(ChartRendering.render(values)).stream().filter(Deployment.class::isInstance)
                .map(Deployment.class::cast).flatMap(d -> d.getSpec().getTemplate().getSpec().getContainers().stream())
                .filter(c -> c.getName().equals("operator")).findFirst().orElseThrow();
    }

    static Optional<String> javaToolOptions(Container c) {
        return c.getEnv().stream().filter(e -> e.getName().equals("JAVA_TOOL_OPTIONS")).map(EnvVar::getValue).findFirst();
    }

    /** The maximum heap the JVM takes from these options under this memory limit (HotSpot's rules). */
    static long heapCap(String options, long limitBytes) {
        Matcher xmx = Pattern.compile("(?:^|\\s)-Xmx(\\d+)([kKmMgG]?)(?=\\s|$)").matcher(options);
        long cap = -1;
        while (xmx.find()) { // the last one wins, as on the JVM's command line
            long n = Long.parseLong(xmx.group(1));
            cap = switch (xmx.group(2).toLowerCase()) {
                case "k" -> n * 1024;
                case "m" -> n * MIB;
                case "g" -> n * 1024 * MIB;
                default -> n;
            };
        }
        if (cap >= 0) {
            return cap;
        }
        Matcher pct = Pattern.compile("-XX:MaxRAMPercentage=([0-9.]+)").matcher(options);
        double percent = 25; // HotSpot's default
        while (pct.find()) {
            percent = Double.parseDouble(pct.group(1));
        }
        return (long) (limitBytes * percent / 100);
    }

    static long memoryLimit(Container c) {
        Quantity q = c.getResources().getLimits().get("memory");
        assertThat(q).as("the operator has a memory limit").isNotNull();
        return Quantity.getAmountInBytes(q).longValueExact();
    }

    @Test
    void defaultOptionsTuneForABurstOnFewCores() {
        Container c = operator(Map.of());
        String options = javaToolOptions(c).orElseThrow();
        assertThat(options.split("\\s+")).contains("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:+ExitOnOutOfMemoryError");
        long limit = memoryLimit(c);
        long heap = heapCap(options, limit);
        assertThat(heap).as("heap cap %d MiB holds the live set of 10,000 Rollouts", heap / MIB).isGreaterThanOrEqualTo(HEAP_FOR_LIVE_SET);
        assertThat(limit - heap).as("room above the heap cap under the %d MiB limit", limit / MIB).isGreaterThanOrEqualTo(NON_HEAP_ROOM);
    }

    @Test
    void memoryOptionsOfIssue42ReachTheContainer() {
        // operator/README.md "Memory": a fixed young generation and bounded malloc arenas (operator.env).
        Container c = operator(Map.of());
        assertThat(javaToolOptions(c).orElseThrow().split("\\s+")).contains("-Xmn32m", "-XX:TrimNativeHeapInterval=5000");
        assertThat(c.getEnv()).anySatisfy(e -> {
            assertThat(e.getName()).isEqualTo("MALLOC_ARENA_MAX");
            assertThat(e.getValue()).isEqualTo("2");
        });
        assertThat(operator(Map.of("operator.env.MALLOC_ARENA_MAX", "4")).getEnv())
                .anySatisfy(e -> assertThat(e.getName() + "=" + e.getValue()).isEqualTo("MALLOC_ARENA_MAX=4"));
    }

    @Test
    void aLimitTooSmallForTheHeapIsSeen() {
        // The check above is not vacuous: with 700Mi, 60% is 420 MiB, below the live set.
        Container c = operator(Map.of("operator.resources.limits.memory", "700Mi"));
        long limit = memoryLimit(c);
        assertThat(limit).isEqualTo(700 * MIB);
        assertThat(heapCap(javaToolOptions(c).orElseThrow(), limit)).isLessThan(HEAP_FOR_LIVE_SET);
        // and -Xmx close to the limit leaves no room
        assertThat(limit - heapCap("-XX:MaxRAMPercentage=60 -Xmx600m", limit)).isLessThan(NON_HEAP_ROOM);
    }

    @Test
    void optionsCanBeReplacedOrDropped() {
        assertThat(javaToolOptions(operator(Map.of("operator.jvmOptions", "-Xmx700m -XX:+UseParallelGC")))).contains("-Xmx700m -XX:+UseParallelGC");
        assertThat(javaToolOptions(operator(Map.of("operator.jvmOptions", "")))).isEmpty();
        assertThat(heapCap("-Xmx1g", 0)).isEqualTo(1024 * MIB);
        assertThat(heapCap("", 1024 * MIB)).isEqualTo(256 * MIB);
    }
}
