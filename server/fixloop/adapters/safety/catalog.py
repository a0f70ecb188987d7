"""The rule catalogue: one stable code per rule, its default severity and a one-line explanation.

Codes never change meaning; a retired rule keeps its number unused. Severity "error" marks what a
repair candidate may never introduce (the loop refuses to run it); "warning" is reported only.
Rules with `generated_only` are about what generated code may do (write or delete outside the
project, use the network); in a human's library they are normal, so editor diagnostics use
`EDITOR_CODES` and leave them out. A rule with an `editor_severity` blocks candidates but is shown
in the editor at that severity (`for_editor`). Retired: FL-S011 (dynamic import, a warning), now
part of FL-S013.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable

from fixloop.core.model import Finding


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: str
    explanation: str
    generated_only: bool = False
    editor_severity: str = ""  # "" = the same as `severity`


RULES: dict[str, Rule] = {
    r.code: r
    for r in (
        Rule("FL-S001", "eval", "error",
             "eval()/exec() on a value that is not a string literal runs arbitrary code; "
             "use ast.literal_eval or explicit parsing"),
        Rule("FL-S002", "os-shell", "error",
             "os.system()/os.popen() run the command through a shell: command injection if any part is "
             "untrusted; use subprocess.run([...]) with an argument list"),
        Rule("FL-S003", "shell-true", "error",
             "a subprocess started through the shell (shell=True, getoutput, create_subprocess_shell) "
             "lets shell metacharacters in the command run other commands; pass an argument list"),
        Rule("FL-S004", "unsafe-deserialize", "error",
             "pickle/marshal/dill loading runs code chosen by whoever wrote the data; "
             "load only data you produced, or use json"),
        Rule("FL-S005", "yaml-load", "warning",
             "yaml.load without Loader=yaml.SafeLoader can build arbitrary Python objects; use yaml.safe_load"),
        Rule("FL-S006", "mktemp", "warning",
             "tempfile.mktemp returns a name another process can take first; use mkstemp or NamedTemporaryFile"),
        Rule("FL-S007", "hardcoded-secret", "error",
             "a secret written into the source ends up in version control and logs; read it from the "
             "environment or a secrets store"),
        Rule("FL-S008", "write-outside", "error",
             "writes to an absolute or home-directory path, outside the project", generated_only=True),
        Rule("FL-S009", "delete-outside", "error",
             "deletes an absolute or home-directory path, outside the project", generated_only=True),
        Rule("FL-S010", "network", "error",
             "opens a network connection from library code; a repair should not need the network",
             generated_only=True),
        Rule("FL-S012", "run-config", "error",
             "changes how tests or the interpreter start (pytest, tox or setup configuration, .pth files, "
             "sitecustomize): a candidate could deselect tests, load a plugin or run code before them",
             generated_only=True),
        Rule("FL-S013", "harness-reach", "error",
             "reaches into the interpreter or the test harness (stack frames, the garbage collector's object "
             "graph, sys.modules, trace hooks, ctypes, faulthandler), ends or signals its own process, or gets "
             "there by a computed name (getattr, __import__, globals()[...] or a name built from strings): a "
             "candidate could rewrite the test report instead of fixing the bug", editor_severity="warning"),
        Rule("FL-S014", "invisible-text", "error",
             "adds a bidirectional control (U+202A-202E, U+2066-2069, U+200E/200F, U+061C) or an invisible "
             "character (zero-width space or joiner, word joiner, a byte-order mark inside the text, any other "
             "format character, a line or paragraph separator): the code a reviewer reads is not the code that "
             "runs (Trojan Source)", editor_severity="warning"),
        Rule("FL-S015", "process-takeover", "error",
             "writes to raw file descriptors, replaces, forks or ends the test process (exec*, posix_spawn, "
             "spawn*, fork, sys.exit, SystemExit, pytest.exit), signals or inspects its own process or its parent "
             "(getppid, kill run as a command, alarm timers, /proc/self), or changes its limits "
             "(resource.setrlimit): a candidate could write or cut short the test report instead of fixing the "
             "bug", generated_only=True),
    )
}


EDITOR_CODES = frozenset(code for code, rule in RULES.items() if not rule.generated_only)


def for_editor(findings: Iterable[Finding]) -> list[Finding]:
    """The findings as the editor shows them: a rule's `editor_severity` replaces its blocking one."""
    out: list[Finding] = []
    for f in findings:
        rule = RULES.get(f.code)
        out.append(replace(f, severity=rule.editor_severity) if rule and rule.editor_severity else f)
    return out


def explain(code: str) -> str:
    rule = RULES.get(code)
    return rule.explanation if rule else ""


# Qualified call targets -> the check that decides whether the call is flagged.
CODE_EXEC = {"eval", "exec", "builtins.eval", "builtins.exec"}
OS_SHELL = {"os.system", "os.popen", "posix.system", "nt.system"}
SUBPROCESS = {f"subprocess.{n}" for n in ("run", "call", "check_call", "check_output", "Popen")}
SHELL_ALWAYS = {"subprocess.getoutput", "subprocess.getstatusoutput", "asyncio.create_subprocess_shell",
                "commands.getoutput", "commands.getstatusoutput"}
DESERIALIZE = {f"{m}.{f}" for m in ("pickle", "_pickle", "cPickle", "dill", "cloudpickle", "marshal")
               for f in ("load", "loads", "Unpickler")} | {"pandas.read_pickle"}
YAML_LOAD = {"yaml.load", "yaml.load_all", "yaml.unsafe_load", "yaml.unsafe_load_all",
             "ruamel.yaml.load", "ruamel.yaml.load_all"}
YAML_SAFE_LOADERS = {"SafeLoader", "CSafeLoader", "BaseLoader", "CBaseLoader"}
MKTEMP = {"tempfile.mktemp", "os.tempnam", "os.tmpnam"}
OPEN = {"open", "builtins.open", "io.open", "codecs.open"}
DELETE = {"shutil.rmtree", "os.remove", "os.unlink", "os.rmdir", "os.removedirs"}
NETWORK = {
    "socket.socket", "socket.create_connection", "socket.create_server", "socket.socketpair",
    "urllib.request.urlopen", "urllib.request.urlretrieve", "urllib.request.build_opener",
    "urllib.urlopen", "urllib2.urlopen", "http.client.HTTPConnection", "http.client.HTTPSConnection",
    "ftplib.FTP", "ftplib.FTP_TLS", "smtplib.SMTP", "smtplib.SMTP_SSL", "telnetlib.Telnet",
    "poplib.POP3", "imaplib.IMAP4", "imaplib.IMAP4_SSL", "xmlrpc.client.ServerProxy",
    "urllib3.PoolManager", "urllib3.request", "aiohttp.ClientSession", "aiohttp.request",
    "asyncio.open_connection", "websocket.create_connection", "websockets.connect",
} | {f"{lib}.{verb}" for lib in ("requests", "httpx")
     for verb in ("get", "post", "put", "patch", "delete", "head", "options", "request", "stream",
                  "Session", "Client", "AsyncClient")}
DYNAMIC_IMPORT = {"__import__", "builtins.__import__", "importlib.import_module", "importlib.__import__",
                  "pkgutil.resolve_name"}

# FL-S013. Names flagged wherever they are used (called or passed around), after alias resolution.
HARNESS_NAMES = {
    "sys._getframe", "sys._current_frames", "sys.settrace", "sys.setprofile", "sys.modules",
    "sys._getframemodulename", "inspect.currentframe", "inspect.stack", "inspect.trace",
    "inspect.getouterframes", "inspect.getinnerframes", "gc.get_objects", "gc.get_referrers",
    "gc.get_referents", "os.kill", "os.killpg", "os._exit", "os.abort", "posix.kill", "posix.killpg",
    "posix._exit", "posix.abort", "signal.raise_signal", "signal.pthread_kill", "signal.pidfd_send_signal",
    "threading.settrace", "threading.setprofile", "threading.settrace_all_threads",
    "threading.setprofile_all_threads", "_thread.interrupt_main", "traceback.walk_stack", "sys.last_traceback",
    "sys.last_exc", "sys.last_value",
}
# Modules any use of which is flagged: raw memory, crash hooks, pytest's internals, fixloop's own plugin.
HARNESS_MODULES = {"ctypes", "_ctypes", "faulthandler", "_pytest", "pluggy", "fixloop_report", "fixloop_paths",
                   "fixloop_options", "fixloop_values", "fixloop_spectrum"}
# Modules whose attributes must not be reached by a computed name (getattr, __import__, ...).
SENSITIVE_MODULES = HARNESS_MODULES | {"os", "posix", "nt", "sys", "gc", "inspect", "signal", "_signal",
                                       "builtins", "__builtin__", "threading", "_thread", "traceback",
                                       "importlib", "types"}
FRAME_ATTRS = {"f_back", "f_locals", "f_globals", "f_builtins", "tb_frame", "tb_next", "gi_frame", "cr_frame",
               "ag_frame"}
# Attributes that lead from any object to others through the interpreter: every class (and so the plugin's), a
# function's module globals, its closure's cells.
GRAPH_ATTRS = {"__subclasses__", "__globals__", "__closure__", "cell_contents", "func_globals"}
# Attribute names that, written as a literal (getattr(x, "f_back")) or built from strings, mean the same.
BLOCKED_ATTRS = FRAME_ATTRS | GRAPH_ATTRS | {"__code__"} | {q.rsplit(".", 1)[-1] for q in HARNESS_NAMES}
# Strings flagged wherever a literal (after folding `+`, `%`, .format, .join and f-strings) spells one:
# the names that hardly mean anything else. "modules", "kill", "stack" or "os" alone count only where an
# attribute or a module is named (getattr, __import__, globals()[...]).
BLOCKED_STRINGS = FRAME_ATTRS | GRAPH_ATTRS | HARNESS_NAMES | HARNESS_MODULES | {
    "_getframe", "_current_frames", "currentframe", "getouterframes", "getinnerframes", "get_objects",
    "get_referrers", "get_referents", "settrace", "setprofile", "killpg", "pthread_kill", "raise_signal",
    "pidfd_send_signal", "_exit", "__builtins__", "walk_stack", "interrupt_main",
}
NAME_LOOKUPS = {"getattr", "builtins.getattr", "setattr", "builtins.setattr", "delattr", "builtins.delattr",
                "operator.attrgetter", "operator.methodcaller", "inspect.getattr_static"}
NAMESPACES = {"vars", "globals", "locals", "builtins.vars", "builtins.globals", "builtins.locals"}


def is_harness(qualified: str) -> bool:
    return qualified in HARNESS_NAMES or qualified.split(".", 1)[0] in HARNESS_MODULES


# FL-S015. Flagged in any use (called or passed around): calls that replace, copy, end or limit the process.
_EXECS = {f"exec{s}" for s in ("l", "le", "lp", "lpe", "v", "ve", "vp", "vpe")} | {"fexecve", "posix_spawn",
          "posix_spawnp", "fork", "forkpty"} | {f"spawn{s}" for s in ("l", "le", "lp", "lpe", "v", "ve", "vp", "vpe")}
TAKEOVER_NAMES = {f"{m}.{n}" for m in ("os", "posix") for n in _EXECS | {"fdopen", "getppid"}} | {
    "pty.fork", "pty.spawn", "sys.exit", "pytest.exit", "resource.setrlimit", "resource.prlimit", "signal.alarm",
    "signal.setitimer"}
# Raw writes: flagged unless the descriptor is the literal 1 or 2 (the run's own output).
RAW_WRITES = {f"{m}.{n}" for m in ("os", "posix") for n in ("write", "writev", "pwrite", "pwritev", "sendfile")}
# Opening a descriptor by number (`open(7, "w")`): a literal other than 0, 1 or 2.
BY_NUMBER = {"open", "builtins.open", "io.open", "io.FileIO", "_io.FileIO"}
# The timers fixloop's plugin stops a hung test with: a handler for them switches the limit off.
TIMER_SIGNALS = {"SIGALRM", "SIGPROF", "SIGVTALRM"}
KILLERS = {"kill", "pkill", "killall"}  # programs that, run with the test's own pid, end the test process
TAKEOVER_ANCHORS = frozenset({q.rsplit(".", 1)[-1] for q in TAKEOVER_NAMES | RAW_WRITES | BY_NUMBER}
                             | GRAPH_ATTRS | {"FileIO", "signal", "exc_info", "__code__", "exit", "quit", "SystemExit"})


CALL_KINDS: dict[str, str] = {}
for _kind, _names in (("exec", CODE_EXEC), ("os_shell", OS_SHELL), ("subprocess", SUBPROCESS),
                      ("shell_always", SHELL_ALWAYS), ("deserialize", DESERIALIZE), ("yaml", YAML_LOAD),
                      ("mktemp", MKTEMP), ("open", OPEN), ("delete", DELETE), ("network", NETWORK),
                      ("import", DYNAMIC_IMPORT), ("lookup", NAME_LOOKUPS), ("namespace", NAMESPACES)):
    for _name in _names:
        CALL_KINDS[_name] = _kind

# Builtins that a bare name means unless the module rebinds it.
BUILTIN_CALLS = {"eval", "exec", "open", "__import__", "getattr", "setattr", "delattr", "vars", "globals", "locals",
                 "exit", "quit", "SystemExit"}
# Methods of path-like objects: flagged when the object is an outside path.
PATH_WRITE_METHODS = {"write_text", "write_bytes", "open", "touch", "mkdir", "symlink_to", "hardlink_to"}
PATH_DELETE_METHODS = {"unlink", "rmdir"}

# The last name segments that can start a flagged call: the anchors the scanner looks for.
ANCHOR_NAMES = frozenset({q.rsplit(".", 1)[-1] for q in CALL_KINDS} | PATH_WRITE_METHODS | PATH_DELETE_METHODS
                         | {q.rsplit(".", 1)[-1] for q in HARNESS_NAMES} | HARNESS_MODULES | FRAME_ATTRS
                         | {"__dict__", "__builtins__", "__getattribute__", "getattr", "setattr", "delattr",
                            "__import__", "vars", "globals", "locals"} | TAKEOVER_ANCHORS)

# Secrets: identifier words that name one, and trailing words that mean "about a secret", not one.
SECRET_WORDS = {"password", "passwd", "passphrase", "pwd", "secret", "token", "apikey", "accesskey",
                "privatekey", "authkey", "clientsecret", "secretkey", "credential", "credentials"}
NOT_A_SECRET_SUFFIXES = {
    "url", "uri", "urls", "name", "names", "field", "fields", "type", "types", "file", "files", "path",
    "dir", "env", "var", "variable", "header", "headers", "prefix", "suffix", "pattern", "regex", "re",
    "length", "len", "size", "label", "prompt", "id", "hint", "help", "message", "msg", "template",
    "format", "fmt", "endpoint", "kind", "param", "attr", "column", "col", "count", "max", "min", "sep",
    "separator", "char", "chars", "display", "placeholder", "error", "text", "title", "description",
    "doc", "class", "cls", "mode", "method", "scope", "scopes", "location", "source", "expiry",
    "expires", "ttl", "timeout", "policy", "rules", "rule", "hash", "algorithm", "algo", "encoding",
    "lifetime", "command", "cmd", "option", "setting", "key_name", "widget", "input", "min_length",
    "style", "version", "cache", "store", "backend", "provider", "handler", "validator", "reset",
}
