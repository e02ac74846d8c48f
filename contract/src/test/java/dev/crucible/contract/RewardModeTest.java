package dev.crucible.contract;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class RewardModeTest {
    private final ObjectMapper json = new ObjectMapper();

    @Test
    void eachModeIsWrittenAndReadByItsLowerCaseName() throws Exception {
        for (RewardMode m : RewardMode.values()) {
            assertThat(json.writeValueAsString(m)).isEqualTo("\"" + m.wire() + "\"");
            assertThat(json.readValue("\"" + m.wire() + "\"", RewardMode.class)).isEqualTo(m);
            assertThat(RewardMode.of(m.wire())).isEqualTo(m);
        }
        assertThat(RewardMode.wireNames()).containsExactly("binary", "fraction", "coderl", "weighted");
    }

    @Test
    void unknownOrUnsetIsNoModeAndDefaultsToTheSpecDefault() {
        assertThat(RewardMode.of("BINARY")).isNull();
        assertThat(RewardMode.of(null)).isNull();
        assertThat(RewardMode.of(SpecDefaults.REWARD_MODE)).isEqualTo(RewardMode.BINARY);
        assertThat(RewardMode.orDefault(null)).isEqualTo(RewardMode.BINARY);
        assertThat(RewardMode.orDefault("nonsense")).isEqualTo(RewardMode.BINARY);
    }

    @Test
    void onlyCodeRlFloorsBelowZero() {
        assertThat(RewardMode.CODERL.floor()).isEqualTo(-1.0);
        assertThat(RewardMode.BINARY.floor()).isZero();
        assertThat(Reward.floor("coderl")).isEqualTo(-1.0);
        assertThat(Reward.floor(null)).isZero();
        assertThat(Reward.trainable(0.7, 1, "coderl")).isEqualTo(-1.0);
        assertThat(Reward.trainable(0.7, 0, "coderl")).isEqualTo(0.7);
    }
}
