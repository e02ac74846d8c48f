package dev.crucible.verifier.config;

/** Bad input in a manifest; the message names the file and the field. */
public class ConfigException extends RuntimeException {
    public ConfigException(String message) { super(message); }

    public ConfigException(String message, Throwable cause) { super(message, cause); }
}
