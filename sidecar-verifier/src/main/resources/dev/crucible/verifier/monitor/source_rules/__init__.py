# Reward-hack rules on the syntax tree of Python files, and the test-runner sections of config files.
# Run by the verifier as `python -I -S -B -c <this file>` with a JSON request on stdin, or, with the
# argument --serve, kept running with one JSON request per line and one answer per line. It only reads
# and parses (ast, tomllib, configparser): the analysed code is never imported or executed.
# Request: {"files": [{"b64": content, "rel": rel}], "configs": [{"b64": content, "rel": rel}]}: the content, never a
# path, so that this process opens nothing of the agent's (the verifier reads it, contained and bounded).
# Answer:  {"files": [{"rel", "ok", "error"?, "hits": [{"rule", "detector", "severity", "line", "evidence"}]}],
#           "configs": [{"rel", "ok", "error"?, "sections": canonical JSON of the test-runner sections}]}
#
# The package's modules: rule_tables (the names the rules look for), fold (constant folding of string
# expressions), analyzer (the per-file visitor, built from the rule mixins equality_rules, hook_and_write_rules,
# name_rules and call_rules), links (what a module may import or run), config_sections (the test-runner
# sections of config files) and serve (the request loop). The verifier hands all of them to the interpreter
# on its command line (source_rules_boot.py beside this folder); none is read from disk at run time.
