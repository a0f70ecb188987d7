"""The rule catalogue: one stable code per rule, its default severity and a one-line explanation.

Codes never change meaning; a retired rule keeps its number unused. Severity "error" marks what a
repair candidate may never introduce (the loop refuses to run it); "warning" is reported only.
Rules with `generated_only` are about what generated code may do (write or delete outside the
project, use the network, import computed names); in a human's library they are normal, so editor
diagnostics use `EDITOR_CODES` and leave them out.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: str
    explanation: str
    generated_only: bool = False


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
        Rule("FL-S011", "dynamic-import", "warning",
             "__import__/importlib.import_module of a computed name can load any module", generated_only=True),
        Rule("FL-S012", "run-config", "error",
             "changes how tests or the interpreter start (pytest, tox or setup configuration, .pth files, "
             "sitecustomize): a candidate could deselect tests, load a plugin or run code before them",
             generated_only=True),
    )
}


EDITOR_CODES = frozenset(code for code, rule in RULES.items() if not rule.generated_only)


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
DYNAMIC_IMPORT = {"__import__", "builtins.__import__", "importlib.import_module", "importlib.__import__"}

CALL_KINDS: dict[str, str] = {}
for _kind, _names in (("exec", CODE_EXEC), ("os_shell", OS_SHELL), ("subprocess", SUBPROCESS),
                      ("shell_always", SHELL_ALWAYS), ("deserialize", DESERIALIZE), ("yaml", YAML_LOAD),
                      ("mktemp", MKTEMP), ("open", OPEN), ("delete", DELETE), ("network", NETWORK),
                      ("import", DYNAMIC_IMPORT)):
    for _name in _names:
        CALL_KINDS[_name] = _kind

# Builtins that a bare name means unless the module rebinds it.
BUILTIN_CALLS = {"eval", "exec", "open", "__import__"}
# Methods of path-like objects: flagged when the object is an outside path.
PATH_WRITE_METHODS = {"write_text", "write_bytes", "open", "touch", "mkdir", "symlink_to", "hardlink_to"}
PATH_DELETE_METHODS = {"unlink", "rmdir"}

# The last name segments that can start a flagged call: the anchors the scanner looks for.
ANCHOR_NAMES = frozenset({q.rsplit(".", 1)[-1] for q in CALL_KINDS} | PATH_WRITE_METHODS | PATH_DELETE_METHODS)

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
