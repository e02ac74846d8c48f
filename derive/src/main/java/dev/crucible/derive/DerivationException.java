package dev.crucible.derive;

/**
 * Why a workflow could not be turned into an environment. The message always names the workflow file,
 * and the job and line where they are known, so a person can go straight to the offending YAML.
 */
public final class DerivationException extends Exception {
    private final String file;
    private final String job;
    private final int line;
    private final String problem;

    public DerivationException(String file, String job, int line, String problem) {
        super(format(file, job, line, problem));
        this.file = file;
        this.job = job;
        this.line = line;
        this.problem = problem;
    }

    /** The same problem, now known to concern {@code job}. */
    DerivationException inJob(String jobId) {
        return job != null ? this : new DerivationException(file, jobId, line, problem);
    }

    private static String format(String file, String job, int line, String problem) {
        StringBuilder s = new StringBuilder(file == null ? "<workflow>" : file);
        if (line > 0) {
            s.append(':').append(line);
        }
        s.append(": ");
        if (job != null) {
            s.append("job '").append(job).append("': ");
        }
        return s.append(problem).toString();
    }

    public String file() {
        return file;
    }

    /** The job concerned, or null when the problem is not in one job. */
    public String job() {
        return job;
    }

    /** 1-based line in the workflow file, or 0 when no line applies. */
    public int line() {
        return line;
    }

    /** The problem without the file/job/line prefix. */
    public String problem() {
        return problem;
    }
}
