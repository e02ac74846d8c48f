package dev.crucible.controllers.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import org.junit.jupiter.api.Test;

/** report.json as crucible probe train writes it, and the ways it can be broken. */
class TrainingReportTest {

    static ConfigMap report(String json) {
        var b = new ConfigMapBuilder().withNewMetadata().withName("p-training-report").endMetadata();
        return (json == null ? b : b.addToData("report.json", json)).build();
    }

    @Test
    void readsTheMetricsBlockOfAFullReport() {
        var r = TrainingReport.from(report("""
                {"corpus":"corpus.jsonl","data":{"rows":400},"metrics":{"balancedAccuracy":0.7123,"auc":0.8,
                "f1":0.5,"ece":0.04,"spearman":0.33,"rewardVariance":0.9,
                "selected":{"layer":3,"pooling":"max","architecture":"linear"},"trainedAt":"2026-11-21T10:00:00Z"},
                "timings":{"extractSeconds":12}}"""));
        assertThat(r.present()).isTrue();
        assertThat(r.error()).isNull();
        assertThat(r.metrics().balancedAccuracy).isEqualTo(0.7123);
        assertThat(r.metrics().ece).isEqualTo(0.04);
        assertThat(r.metrics().rewardVariance).isEqualTo(0.9);
        assertThat(r.metrics().selected.pooling).isEqualTo("max");
        assertThat(r.metrics().trainedAt).isEqualTo("2026-11-21T10:00:00Z");
    }

    @Test
    void acceptsABareMetricsObjectAndDropsNonFiniteNumbers() {
        var r = TrainingReport.from(report("{\"balancedAccuracy\":0.6,\"auc\":\"NaN\",\"spearman\":null}"));
        assertThat(r.metrics().balancedAccuracy).isEqualTo(0.6);
        assertThat(r.metrics().auc).isNull();
        assertThat(r.metrics().spearman).isNull();
        assertThat(r.metrics().selected).isNull();
    }

    @Test
    void brokenReportsSayWhy() {
        assertThat(TrainingReport.from(null)).isEqualTo(TrainingReport.absent());
        assertThat(TrainingReport.from(report(null)).error()).contains("no key report.json");
        assertThat(TrainingReport.from(report("{oops")).error()).contains("not JSON");
        assertThat(TrainingReport.from(report("[1,2]")).error()).contains("metrics");
        assertThat(TrainingReport.from(report("{\"metrics\":{\"trainedAt\":\"x\"}}")).error()).contains("balancedAccuracy");
    }
}
