package dev.crucible.cli.attacks;

import org.junit.jupiter.api.Tag;

/**
 * {@link EnvironmentApiAttacksTest}'s cases against an interactive run whose CLI is the throwaway uid 64123 (setpriv), as a
 * user who is not root runs it: its file tools, its token file and its steps' box are that user's. "Another local user" is
 * then uid 64124.
 */
@Tag("attacks")
class EnvironmentApiAttacksAsUserTest extends EnvironmentApiAttacksTest {
    @Override
    Integer cliUser() {
        return CliProcess.THROWAWAY_UID;
    }
}
