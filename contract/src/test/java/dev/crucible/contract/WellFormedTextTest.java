package dev.crucible.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class WellFormedTextTest {

    @Test
    void loneSurrogatesBecomeReplacementCharactersAndPairsStay() {
        String lone = "lone \udc80 surrogate, high \ud800 at end \ud83d";
        assertThat(WellFormedText.of(lone)).isEqualTo("lone \uFFFD surrogate, high \uFFFD at end \uFFFD");
        String pair = "a \ud83d\ude00 b"; // an emoji: a surrogate pair, valid
        assertThat(WellFormedText.of(pair)).isSameAs(pair);
        assertThat(WellFormedText.of("plain")).isSameAs("plain");
        assertThat(WellFormedText.of(null)).isNull();
    }

    @Test
    void theResultJsonOfAMessageWithALoneSurrogateEncodesAsUtf8() throws Exception {
        var tests = VerifierResultJson.Tests.of(0, 1, 0, 1);
        String json = VerifierResultJson.write(new VerifierResultJson.Result(PhaseName.Succeeded, null, 1, 0.0, 0.0, "fail",
                tests, 0, null, null, "ValueError: lone \udc80 surrogate", null));
        // a strict encoder (as Files.writeString uses) refuses a lone surrogate; the written result must pass it
        StandardCharsets.UTF_8.newEncoder().encode(java.nio.CharBuffer.wrap(json));
        assertThat(VerifierResultJson.parse(json).result().message()).contains("lone \uFFFD surrogate");
    }
}
