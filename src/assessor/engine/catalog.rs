//! What the assessor knows about the standard library and common packages: canonical
//! module names, which dotted names are security-relevant APIs, and a few constants.
//!
//! `scan` canonicalises imports and resolves star imports through it; `calls` asks
//! [`api`] what a resolved callee does. Growing coverage means adding lines here.

use super::fold::{Compression, Encoding};
use super::parser::BinOp;

/// What a known callable does, as far as the rules care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// `exec`, `eval`, `compile`: the first argument is code.
    CodeExec,
    /// `code.interact(readfunc=f)`: runs each line `f` returns as Python.
    Interact,
    /// `ipaddress.ip_network(...)`: a network, whose addresses a scan goes through.
    HostRange,
    /// `dns.query.xfr(server, zone)`: every name of a zone, asked of its server.
    ZoneTransfer,
    /// Part of a Kubernetes pod: privileged, in the node's namespaces, or mounting the
    /// node's root, the pod is a way out onto the node.
    PodSpec,
    /// `runpy.run_path`: runs the file at the first argument.
    RunPath,
    /// `__import__` (returns the top package) or `importlib.import_module`.
    ImportByName {
        top_level: bool,
    },
    GetAttr,
    /// The first argument is a shell command line.
    Shell,
    /// `subprocess.*`: an argv list, or a command line with `shell=True`.
    Process,
    /// `asyncio.create_subprocess_exec(program, *args)`: the argv is the arguments.
    ProcessArgs,
    /// `sys.path.insert(i, path)`, `sys.path.append(path)`: later imports may load from
    /// `path`.
    ImportPath,
    /// `sys.meta_path.insert(0, finder)`: every later import goes through the finder's
    /// `find_spec`, `create_module` and `exec_module` (or `find_module`, `load_module`).
    ImportHook,
    /// `shutil.unpack_archive(filename, extract_dir)`.
    Unpack,
    /// `paramiko.RSAKey.from_private_key_file(path)`: a private key read from the file
    /// at its first argument (`positional`) or its `filename=` keyword.
    KeyFile {
        positional: bool,
    },
    /// `sqlite3.connect(path)`: a database file opened (a `file:` URI as well); what is
    /// queried from it is its data.
    OpenDatabase,
    /// `os.exec*`, `os.spawn*`, `os.posix_spawn`: program path, then argv. `replaces`:
    /// the program takes this process's place (`exec*`) instead of starting beside it.
    ExecProgram {
        replaces: bool,
    },
    PtySpawn,
    Dup2,
    /// Returns its input decoded (in this encoding, or the codec named in its second
    /// argument).
    Decode(Encoding),
    /// Returns its input decompressed.
    Decompress(Compression),
    /// `codecs.encode(data, codec)`: rot13 is its own inverse, so encoding decodes.
    Encode,
    /// `base64.b64encode(data)` (or, with `hex`, `binascii.hexlify`): known data encoded,
    /// so that decoding it again gives the data back.
    EncodeAs {
        hex: bool,
    },
    /// Returns data fetched from the network.
    Fetch,
    /// `urlretrieve(url, filename)`: saves network data to a file.
    Download,
    /// A new socket; its family and type are arguments `first_arg` and the next.
    SocketNew {
        first_arg: usize,
    },
    /// `socket.socketpair()`: two sockets connected to each other, within the machine.
    SocketPair,
    /// Sends or captures raw packets (`scapy.all.sniff`).
    RawPackets,
    /// Opens a connected socket in one call.
    SocketConnect,
    /// Other network clients (HTTP, FTP, SMTP, ...).
    NetworkClient,
    Open,
    PathNew,
    PathHome,
    PathJoin,
    /// Returns its first argument's path, transformed (`expanduser`, `abspath`, ...).
    PathSame,
    /// `os.path.dirname`: the directory holding its first argument.
    PathParent,
    /// `os.path.basename`: the last part of its first argument.
    PathFileName,
    /// `fileinput.input(files=...)`: reads each of the files it is given (and, with
    /// `inplace=True`, rewrites them).
    FileInput,
    /// Opens and reads the file at its first argument, or at `default` without one
    /// (`netrc.netrc()` reads `~/.netrc`).
    ReadsFile {
        default: &'static str,
    },
    /// Deletes the path in its first argument.
    Remove {
        /// The directory goes with everything in it (`shutil.rmtree`).
        tree: bool,
    },
    /// Writes or creates the path in argument `arg`.
    WriteTo {
        arg: usize,
    },
    /// `os.truncate(path, n)` or `os.ftruncate(fd, n)`: cuts a file to `n` bytes (to
    /// nothing at 0); the descriptor must have been opened for writing.
    Truncate {
        descriptor: bool,
    },
    Chmod,
    /// `os.chown(path, uid, gid)`: to uid 0, the file is root's.
    Chown,
    SetId,
    /// Enters or creates namespaces, changes the root (`os.setns`, `os.chroot`), or
    /// drives the container engine through its socket (`docker.from_env()`).
    EscapeProbe,
    Kill,
    GetPid,
    /// `os.pidfd_open(pid)`: a descriptor that stands for the process `pid`.
    PidFd,
    /// `os.getpgid(pid)`, `os.getsid(pid)`: the group or session of a process, the
    /// program's own when the pid is (or is 0).
    GroupOf,
    LoadLibrary,
    FindLibrary,
    Prctl,
    Deserialize,
    /// `pickle.dump(obj, file)`, `pickle.dumps(obj)`: the program's own objects, written
    /// to a file or to bytes that are its own data.
    Serialize,
    YamlLoad,
    WeakHash,
    HashNew,
    Chr,
    /// Reads one environment variable.
    Getenv,
    /// Loads a module from the file path in argument `arg` (`spec_from_file_location`).
    LoadSource {
        arg: usize,
    },
    /// `os.open(path, flags)`: read or write depending on the flags.
    OsOpen,
    /// `compile(source, ...)`: code that runs only if the code object is run.
    Compile,
    /// `tempfile.mkdtemp`: the new directory's path.
    TempDir,
    /// `tempfile.mkstemp`: a descriptor open for writing and the new file's path.
    TempFile,
    /// `os.write(fd, data)`.
    WriteFd,
    /// Returns secrets kept by the desktop: `one` credential (`keyring.get_password`), or
    /// a store of them (the Secret Service's collections).
    SecretStore {
        one: bool,
    },
    /// A server that calls the function in argument `handler` with each client's streams
    /// (`asyncio.start_server(handle, host, port)`).
    Serves {
        handler: usize,
        keyword: &'static str,
    },
    /// Opens a file whose path the program does not name: a temporary file, or a file
    /// descriptor (`os.fdopen(fd, mode)`); the mode is in argument `mode`, when any.
    OpenUnnamed {
        mode: Option<usize>,
    },
    /// `os.scandir(dir)`: entries kept as their paths, `dir/<?>` (`entry.path`, `entry.name`).
    ScanDir,
    /// Paths matching a pattern or inside a directory (`glob.glob`, `os.listdir`);
    /// `names_only` when the elements are bare names rather than paths.
    Listing {
        names_only: bool,
    },
    /// `os.walk(top)`: `(dirpath, dirnames, filenames)` triples below `top`.
    Walk,
    /// Every process on the machine (`psutil.process_iter`, `psutil.pids`).
    ProcessList,
    /// A handle on the process with the pid in the first argument (`psutil.Process`).
    ProcessHandle,
    /// `functools.partial`: a function with some arguments already bound.
    Partial,
    /// The site-packages directory (or a list or mapping of such directories).
    SitePackages,
    /// `operator.methodcaller(name, args...)`: calls `name` on what it is given.
    MethodCaller,
    /// `operator.attrgetter("a.b")`: gets that attribute of what it is given.
    AttrGetter,
    /// `operator.itemgetter(key)`: called with a container, its item at `key`.
    ItemGetter,
    /// `@contextlib.contextmanager`: the generator function it decorates, called, gives
    /// what it first yields to `with ... as`.
    ContextManager,
    /// Calls the function in argument `target` (or `target=`) with the argument list in
    /// argument `args` (or `args=`): threads, processes, timers. `args: 0` means the
    /// arguments follow the function (`atexit.register(f, *args)`). `starts`: it runs
    /// in a new thread or process (not later in this one, as an exit hook does). `keyword`
    /// names the function's argument when given by name (`target=`, `handler=`).
    /// `urllib.parse.urljoin(base, url)`.
    UrlJoin,
    /// An object of a library class the analysis follows by name (`nmap.PortScanner()`):
    /// its methods are looked up as `name.method`.
    Object(&'static str),
    /// A log handler that may ship records to another host (`SysLogHandler(address=
    /// (host, 514))`, `SocketHandler(host, port)`).
    LogShipper,
    /// A record logged (`logging.info(...)`): sent out when a handler ships records.
    LogRecord,
    /// A network scanner's scan (`nmap.PortScanner().scan(hosts=...)`).
    PortScan,
    /// `CronTab(user=True).new(command=...)`: a job added to a crontab.
    CronJob,
    /// A connection to a database server (`psycopg2.connect(dsn)`, `create_engine(url)`):
    /// a foreign database unless it is on this machine.
    DatabaseServer,
    /// A client of a container engine (`docker.from_env()`): the local engine, or
    /// another host's (`base_url="tcp://..."`), which is a way out.
    ContainerEngine,
    /// `client.containers.run(image, ...)`: a way out when the container is given the
    /// host (`privileged=True`, `pid_mode="host"`, a volume of `/`).
    ContainerRun,
    /// `client.containers.get(name)`: a container the program did not make (`many`: a
    /// list of them, `containers.list()`).
    ContainerOf {
        many: bool,
    },
    CallsTarget {
        target: usize,
        keyword: &'static str,
        args: usize,
        starts: bool,
    },
    /// A queue between threads or processes (`queue.Queue()`, `multiprocessing.Queue()`).
    QueueNew,
    /// Hooks the keyboard (`pynput.keyboard.Listener`, `keyboard.hook`).
    Keylogger,
    /// `json.dump(obj, file)` and the like: the object's data written to the open file.
    DumpTo,
    /// `operator.truediv(a, b)` and the like: the operator applied to two values
    /// (`reduce(operator.truediv, [Path("/"), "etc", "passwd"])`).
    Operator(BinOp),
}

/// The name a module is known by here: platform aliases collapse onto their portable name.
pub fn canonical_module(name: &str) -> &str {
    match name {
        "posix" | "nt" => "os",
        "posixpath" | "ntpath" => "os.path",
        "_pickle" | "cPickle" | "cloudpickle" | "dill" => "pickle",
        "__builtin__" | "__builtins__" => "builtins",
        "_socket" => "socket",
        "_io" => "io",
        "commands" => "subprocess",
        other => other,
    }
}

/// Rewrites a dotted name so that aliased modules share one spelling
/// (`posix.system` -> `os.system`).
pub fn canonical_name(name: &str) -> std::borrow::Cow<'_, str> {
    let (head, rest) = match name.split_once('.') {
        Some((head, rest)) => (head, Some(rest)),
        None => (name, None),
    };
    let canonical = canonical_module(head);
    match (canonical == head, rest) {
        (true, _) => std::borrow::Cow::Borrowed(name),
        (false, Some(rest)) => format!("{canonical}.{rest}").into(),
        (false, None) => canonical.into(),
    }
}

/// The API behind a canonical dotted name, if the rules know it.
pub fn api(name: &str) -> Option<Api> {
    use Api::*;
    Some(match name {
        "builtins.exec" | "builtins.eval" => CodeExec,
        "ipaddress.ip_network" | "ipaddress.IPv4Network" | "ipaddress.IPv6Network" => HostRange,
        "dns.query.xfr" | "dns.query.inbound_xfr" | "dns.zone.from_xfr" => ZoneTransfer,
        // Servers whose registered functions any client calls with its own arguments.
        "xmlrpc.server.SimpleXMLRPCServer"
        | "xmlrpc.server.DocXMLRPCServer"
        | "xmlrpc.server.MultiPathXMLRPCServer"
        | "SimpleXMLRPCServer.SimpleXMLRPCServer" => SocketConnect,
        "kubernetes.client.V1SecurityContext"
        | "kubernetes.client.V1PodSpec"
        | "kubernetes.client.V1HostPathVolumeSource" => PodSpec,
        // A console's `push` and `runsource` run the line they are given as Python.
        "code.InteractiveConsole.push"
        | "code.InteractiveConsole.runsource"
        | "code.InteractiveConsole.runcode" => CodeExec,
        "code.interact" => Interact,
        "builtins.compile" => Compile,
        // A function made from a code object runs that code when called.
        "types.FunctionType" | "types.LambdaType" => CodeExec,
        "runpy.run_path" | "runpy.run_module" => RunPath,
        "builtins.__import__" => ImportByName { top_level: true },
        "importlib.import_module" | "importlib.__import__" => ImportByName { top_level: false },
        "builtins.getattr" => GetAttr,
        "operator.add"
        | "operator.concat"
        | "operator.iadd"
        | "operator.iconcat"
        | "operator.__add__"
        | "operator.__concat__"
        | "builtins.str.__add__"
        | "builtins.bytes.__add__" => Operator(BinOp::Add),
        "operator.truediv" | "operator.itruediv" | "operator.__truediv__" => Operator(BinOp::Div),
        "operator.mod" | "builtins.str.__mod__" | "builtins.bytes.__mod__" => Operator(BinOp::Mod),
        "operator.mul" | "builtins.str.__mul__" | "builtins.bytes.__mul__" => Operator(BinOp::Mul),
        "operator.xor" => Operator(BinOp::BitXor),
        "operator.or_" | "operator.ior" | "operator.__or__" => Operator(BinOp::BitOr),
        "operator.and_" | "operator.__and__" => Operator(BinOp::BitAnd),
        "operator.sub" | "operator.__sub__" => Operator(BinOp::Sub),
        "os.system"
        | "os.popen"
        | "subprocess.getoutput"
        | "subprocess.getstatusoutput"
        | "asyncio.create_subprocess_shell"
        | "pexpect.spawn"
        | "pexpect.run"
        | "pexpect.popen_spawn.PopenSpawn"
        | "invoke.run"
        | "invoke.sudo" => Shell,
        "subprocess.run"
        | "subprocess.call"
        | "subprocess.check_call"
        | "subprocess.check_output"
        | "subprocess.Popen" => Process,
        "asyncio.create_subprocess_exec" => ProcessArgs,
        "sys.path.insert" | "sys.path.append" => ImportPath,
        "sys.meta_path.insert" | "sys.meta_path.append" => ImportHook,
        "shutil.unpack_archive" => Unpack,
        "sqlite3.connect" => OpenDatabase,
        "psycopg2.connect"
        | "psycopg.connect"
        | "pymysql.connect"
        | "MySQLdb.connect"
        | "mysql.connector.connect"
        | "asyncpg.connect"
        | "asyncpg.create_pool"
        | "sqlalchemy.create_engine"
        | "sqlalchemy.ext.asyncio.create_async_engine"
        | "pymongo.MongoClient"
        | "cx_Oracle.connect"
        | "oracledb.connect"
        | "pyodbc.connect"
        | "pymssql.connect"
        | "pg8000.connect"
        | "pg8000.native.Connection"
        | "redis.Redis"
        | "redis.StrictRedis"
        | "redis.from_url"
        | "redis.Redis.from_url"
        | "redis.asyncio.Redis"
        | "redis.asyncio.from_url" => DatabaseServer,
        "paramiko.RSAKey.from_private_key_file"
        | "paramiko.ECDSAKey.from_private_key_file"
        | "paramiko.Ed25519Key.from_private_key_file"
        | "paramiko.DSSKey.from_private_key_file"
        | "paramiko.PKey.from_private_key_file"
        | "paramiko.PKey.from_path"
        | "asyncssh.read_private_key"
        | "asyncssh.read_private_key_list" => KeyFile { positional: true },
        "paramiko.RSAKey" | "paramiko.ECDSAKey" | "paramiko.Ed25519Key" | "paramiko.DSSKey" => {
            KeyFile { positional: false }
        }
        "os.execv" | "os.execve" | "os.execvp" | "os.execvpe" | "os.execl" | "os.execle"
        | "os.execlp" | "os.execlpe" => ExecProgram { replaces: true },
        "os.spawnv" | "os.spawnve" | "os.spawnvp" | "os.spawnvpe" | "os.spawnl" | "os.spawnle"
        | "os.spawnlp" | "os.spawnlpe" | "os.posix_spawn" | "os.posix_spawnp" => {
            ExecProgram { replaces: false }
        }
        "pty.spawn" => PtySpawn,
        "os.dup2" | "os.dup" => Dup2,
        "base64.b64decode"
        | "base64.standard_b64decode"
        | "base64.urlsafe_b64decode"
        | "base64.b16decode"
        | "base64.decodebytes"
        | "base64.decodestring"
        | "codecs.decode"
        | "binascii.unhexlify"
        | "binascii.a2b_hex"
        | "binascii.a2b_base64"
        | "builtins.bytes.fromhex"
        | "builtins.bytearray.fromhex" => Decode(Encoding::HexOrBase64),
        "codecs.encode" => Encode,
        "base64.b64encode"
        | "base64.standard_b64encode"
        | "base64.urlsafe_b64encode"
        | "base64.encodebytes"
        | "binascii.b2a_base64" => EncodeAs { hex: false },
        "binascii.hexlify" | "binascii.b2a_hex" | "base64.b16encode" => EncodeAs { hex: true },
        "base64.b32decode" => Decode(Encoding::Base32),
        "base64.b32hexdecode" => Decode(Encoding::Base32Hex),
        "base64.b85decode" => Decode(Encoding::Base85),
        "base64.a85decode" => Decode(Encoding::Ascii85),
        "zlib.decompress" => Decompress(Compression::Zlib),
        "gzip.decompress" => Decompress(Compression::Gzip),
        "bz2.decompress" => Decompress(Compression::Bz2),
        "lzma.decompress" => Decompress(Compression::Lzma),
        "urllib.request.Request"
        | "urllib2.Request"
        | "urllib.request.urlopen"
        | "urllib.request.build_opener"
        | "urllib.request.OpenerDirector"
        | "urllib.urlopen"
        | "urllib2.urlopen"
        | "requests.get"
        | "requests.post"
        | "requests.put"
        | "requests.patch"
        | "requests.delete"
        | "requests.head"
        | "requests.request"
        | "requests.Session"
        | "httpx.get"
        | "httpx.post"
        | "httpx.put"
        | "httpx.request"
        | "httpx.stream"
        | "httpx.Client"
        | "httpx.AsyncClient"
        | "aiohttp.ClientSession"
        | "aiohttp.request"
        | "urllib3.PoolManager"
        | "urllib3.request" => Fetch,
        "urllib.request.urlretrieve" | "urllib.urlretrieve" | "wget.download" => Download,
        "socket.socket" => SocketNew { first_arg: 0 },
        "socket.socketpair" => SocketPair,
        "socket.fromfd" => SocketNew { first_arg: 1 },
        "scapy.all.sniff"
        | "scapy.sendrecv.sniff"
        | "scapy.all.sendp"
        | "scapy.all.srp"
        | "scapy.all.sr"
        | "scapy.all.sr1"
        | "scapy.all.send"
        | "scapy.all.AsyncSniffer" => RawPackets,
        "socket.create_connection"
        | "asyncio.open_connection"
        | "multiprocessing.connection.Client"
        | "multiprocessing.connection.Listener" => SocketConnect,
        "socket.gethostbyname"
        | "socket.gethostbyname_ex"
        | "socket.getaddrinfo"
        | "socket.gethostbyaddr"
        | "dns.resolver.resolve"
        | "dns.resolver.query"
        | "dns.resolver.Resolver"
        | "dns.asyncresolver.resolve"
        | "dns.asyncresolver.Resolver"
        | "websocket.create_connection"
        | "websockets.connect" => NetworkClient,
        "importlib.util.spec_from_file_location"
        | "importlib.machinery.SourceFileLoader"
        | "imp.load_source" => LoadSource { arg: 1 },
        "zipimport.zipimporter" => LoadSource { arg: 0 },
        "os.open" => OsOpen,
        "tempfile.mkstemp" => TempFile,
        "tempfile.mkdtemp" => TempDir,
        "os.write" => WriteFd,
        "glob.glob" | "glob.iglob" => Listing { names_only: false },
        "os.scandir" => ScanDir,
        "os.listdir" => Listing { names_only: true },
        "os.walk" => Walk,
        "psutil.process_iter" | "psutil.pids" => ProcessList,
        "psutil.Process" => ProcessHandle,
        "functools.partial" | "functools.partialmethod" => Partial,
        "site.getsitepackages"
        | "site.getusersitepackages"
        | "sysconfig.get_path"
        | "sysconfig.get_paths"
        | "distutils.sysconfig.get_python_lib" => SitePackages,
        "operator.methodcaller" => MethodCaller,
        "operator.attrgetter" => AttrGetter,
        "operator.itemgetter" => ItemGetter,
        "contextlib.contextmanager" | "contextlib.asynccontextmanager" => ContextManager,
        "threading.Thread" | "multiprocessing.Process" | "multiprocessing.context.Process" => {
            CallsTarget {
                target: 1,
                keyword: "target",
                args: 3,
                starts: true,
            }
        }
        "threading.Timer" => CallsTarget {
            target: 1,
            keyword: "function",
            args: 2,
            starts: true,
        },
        "asyncio.to_thread" => CallsTarget {
            target: 0,
            keyword: "func",
            args: 0,
            starts: true,
        },
        "_thread.start_new_thread" => CallsTarget {
            target: 0,
            keyword: "function",
            args: 0,
            starts: true,
        },
        "atexit.register" => CallsTarget {
            target: 0,
            keyword: "func",
            args: 0,
            starts: false,
        },
        // `signal.signal(SIGTERM, handler)`, `weakref.finalize(obj, f, *args)`.
        "signal.signal" | "weakref.finalize" => CallsTarget {
            target: 1,
            keyword: "handler",
            args: 0,
            starts: false,
        },
        "http.client.HTTPConnection"
        | "http.client.HTTPSConnection"
        | "ftplib.FTP"
        | "ftplib.FTP_TLS"
        | "smtplib.SMTP"
        | "smtplib.SMTP_SSL"
        | "telnetlib.Telnet"
        | "paramiko.SSHClient"
        | "xmlrpc.client.ServerProxy"
        | "boto3.client"
        | "boto3.resource"
        | "boto3.session.Session"
        | "boto3.Session"
        | "google.cloud.storage.Client"
        | "slack_sdk.WebClient"
        | "pysftp.Connection"
        | "paramiko.Transport"
        | "paramiko.SFTPClient.from_transport"
        | "fabric.Connection"
        | "fabric.ThreadingGroup"
        | "fabric.SerialGroup"
        | "fabric.Group"
        | "asyncssh.connect"
        | "imaplib.IMAP4"
        | "imaplib.IMAP4_SSL"
        | "poplib.POP3"
        | "poplib.POP3_SSL"
        | "grpc.insecure_channel"
        | "grpc.secure_channel"
        | "pika.BlockingConnection"
        | "paho.mqtt.client.Client"
        | "kafka.KafkaProducer"
        | "websocket.WebSocket"
        | "pycurl.Curl" => NetworkClient,
        "builtins.open" | "io.open" | "codecs.open" | "io.FileIO" | "gzip.open" | "bz2.open"
        | "lzma.open" => Open,
        "os.fdopen" => OpenUnnamed { mode: Some(1) },
        "asyncio.start_server" | "asyncio.start_unix_server" => Serves {
            handler: 0,
            keyword: "client_connected_cb",
        },
        "socketserver.TCPServer"
        | "socketserver.UDPServer"
        | "socketserver.ThreadingTCPServer"
        | "socketserver.ThreadingUDPServer"
        | "socketserver.ForkingTCPServer"
        | "socketserver.ForkingUDPServer"
        | "socketserver.UnixStreamServer"
        | "socketserver.ThreadingUnixStreamServer"
        | "http.server.HTTPServer"
        | "http.server.ThreadingHTTPServer" => Serves {
            handler: 1,
            keyword: "RequestHandlerClass",
        },
        "keyring.get_password" | "keyring.get_credential" => SecretStore { one: true },
        "secretstorage.get_default_collection"
        | "secretstorage.get_all_collections"
        | "secretstorage.get_any_collection"
        | "secretstorage.search_items" => SecretStore { one: false },
        "tempfile.NamedTemporaryFile"
        | "tempfile.TemporaryFile"
        | "tempfile.SpooledTemporaryFile" => OpenUnnamed { mode: None },
        "pathlib.Path" | "pathlib.PosixPath" | "pathlib.PurePath" | "pathlib.PurePosixPath" => {
            PathNew
        }
        "pathlib.Path.home" | "pathlib.PosixPath.home" => PathHome,
        "os.path.join" => PathJoin,
        "urllib.parse.urljoin" => UrlJoin,
        "os.path.expanduser" | "os.path.expandvars" | "os.path.abspath" | "os.path.normpath"
        | "os.path.realpath" | "os.fsencode" | "os.fsdecode" => PathSame,
        // The tree of the code is the code, as far as `compile` and `exec` care.
        "ast.parse" => PathSame,
        "os.path.dirname" => PathParent,
        "os.path.basename" => PathFileName,
        "fileinput.input" | "fileinput.FileInput" => FileInput,
        "netrc.netrc" => ReadsFile {
            default: "~/.netrc",
        },
        // Every account or group of the host, as reading the files would list them (one
        // entry by name or id, `getpwuid(os.getuid())`, is the program's own business).
        "pwd.getpwall" => ReadsFile {
            default: "/etc/passwd",
        },
        "grp.getgrall" => ReadsFile {
            default: "/etc/group",
        },
        "spwd.getspall" | "spwd.getspnam" => ReadsFile {
            default: "/etc/shadow",
        },
        "os.remove" | "os.unlink" | "os.rmdir" | "os.removedirs" => Remove { tree: false },
        "shutil.rmtree" => Remove { tree: true },
        "os.mkdir" | "os.makedirs" | "os.mknod" | "os.mkfifo" => WriteTo { arg: 0 },
        "shutil.copy" | "shutil.copy2" | "shutil.copyfile" | "shutil.copytree" | "shutil.move"
        | "os.rename" | "os.replace" | "os.renames" | "os.symlink" | "os.link" => {
            WriteTo { arg: 1 }
        }
        "os.chown" | "os.lchown" | "shutil.chown" => Chown,
        "os.truncate" => Truncate { descriptor: false },
        "os.ftruncate" => Truncate { descriptor: true },
        "os.chmod" | "os.lchmod" | "os.fchmod" => Chmod,
        "os.setuid" | "os.setgid" | "os.seteuid" | "os.setegid" | "os.setreuid" | "os.setregid"
        | "os.setresuid" | "os.setresgid" | "os.setgroups" | "os.initgroups" => SetId,
        "os.setns" | "os.unshare" | "os.chroot" => EscapeProbe,
        "logging.handlers.SysLogHandler"
        | "logging.handlers.SocketHandler"
        | "logging.handlers.DatagramHandler"
        | "logging.handlers.HTTPHandler"
        | "logging.handlers.SMTPHandler" => LogShipper,
        "logging.debug" | "logging.info" | "logging.warning" | "logging.error"
        | "logging.critical" | "logging.exception" | "logging.log" => LogRecord,
        // python-nmap drives the nmap scanner; python-crontab edits a user's crontab.
        "nmap.PortScanner" | "nmap.PortScannerAsync" => Object("nmap.PortScanner"),
        "nmap.PortScanner.scan" => PortScan,
        "crontab.CronTab" => Object("crontab.CronTab"),
        "crontab.CronTab.new" => CronJob,
        "docker.from_env"
        | "docker.DockerClient"
        | "docker.DockerClient.from_env"
        | "docker.APIClient"
        | "docker.client.from_env"
        | "docker.client.DockerClient"
        | "docker.api.APIClient" => ContainerEngine,
        "docker.DockerClient.containers.run"
        | "docker.DockerClient.containers.create"
        | "docker.DockerClient.create_host_config"
        | "docker.DockerClient.api.create_host_config" => ContainerRun,
        "docker.DockerClient.containers.get" => ContainerOf { many: false },
        "docker.DockerClient.containers.list" => ContainerOf { many: true },
        // Into a container the program did not make (the low-level client's calls take
        // its id; `client.api` is that client).
        "docker.DockerClient.exec_create"
        | "docker.DockerClient.api.exec_create"
        | "docker.DockerClient.put_archive"
        | "docker.DockerClient.get_archive"
        | "docker.DockerClient.container.exec_run"
        | "docker.DockerClient.container.put_archive"
        | "docker.DockerClient.container.get_archive" => EscapeProbe,
        "os.kill" | "os.killpg" | "signal.pidfd_send_signal" => Kill,
        "os.pidfd_open" => PidFd,
        "os.getpid" | "os.getpgrp" => GetPid,
        "os.getpgid" | "os.getsid" => GroupOf,
        "ctypes.CDLL"
        | "ctypes.PyDLL"
        | "ctypes.cdll.LoadLibrary"
        | "ctypes.LibraryLoader"
        | "ctypes.pydll.LoadLibrary"
        | "cffi.FFI.dlopen" => LoadLibrary,
        "ctypes.util.find_library" => FindLibrary,
        "prctl.set_caps"
        | "prctl.cap_effective"
        | "prctl.cap_permitted"
        | "prctl.cap_inheritable"
        | "prctl.set_keepcaps"
        | "prctl.prctl"
        | "prctl.capbset_drop"
        | "prctl.set_dumpable"
        | "prctl.set_ptracer"
        | "prctl.set_securebits"
        | "pyprctl.set_keepcaps"
        | "pyprctl.cap_set_proc"
        | "capng.capng_apply" => Prctl,
        "pickle.dump" | "joblib.dump" | "pickle.dumps" | "dill.dumps" | "cloudpickle.dumps" => {
            Serialize
        }
        "pickle.loads"
        | "pickle.load"
        | "pickle.Unpickler"
        | "marshal.loads"
        | "marshal.load"
        | "shelve.open"
        | "jsonpickle.decode"
        | "pandas.read_pickle"
        | "yaml.unsafe_load"
        | "yaml.unsafe_load_all"
        | "joblib.load"
        | "torch.load" => Deserialize,
        "yaml.load" | "yaml.load_all" => YamlLoad,
        "hashlib.md5" | "hashlib.sha1" | "Crypto.Hash.MD5.new" | "Crypto.Hash.SHA1.new" => WeakHash,
        "hashlib.new" => HashNew,
        "builtins.chr" => Chr,
        "os.getenv" | "os.environ.get" => Getenv,
        "queue.Queue"
        | "queue.SimpleQueue"
        | "queue.LifoQueue"
        | "queue.PriorityQueue"
        | "multiprocessing.Queue"
        | "multiprocessing.SimpleQueue"
        | "multiprocessing.JoinableQueue"
        | "asyncio.Queue"
        | "asyncio.LifoQueue"
        | "asyncio.PriorityQueue" => QueueNew,
        "shutil.which" => PathSame,
        "pynput.keyboard.Listener"
        | "pynput.keyboard.Events"
        | "keyboard.hook"
        | "keyboard.on_press"
        | "keyboard.on_release"
        | "keyboard.on_press_key"
        | "keyboard.on_release_key"
        | "keyboard.hook_key"
        | "keyboard.start_recording"
        | "keyboard.record"
        | "keyboard.read_key"
        | "keyboard.read_event"
        | "evdev.InputDevice"
        | "evdev.list_devices" => Keylogger,
        "json.dump" | "yaml.dump" | "yaml.safe_dump" | "toml.dump" | "marshal.dump" => DumpTo,
        _ => return None,
    })
}

/// Integer constants that matter to the rules (`stat.S_ISUID | 0o755`).
pub fn constant(name: &str) -> Option<i64> {
    Some(match name {
        "stat.S_ISUID" => 0o4000,
        "stat.S_ISGID" => 0o2000,
        "stat.S_ISVTX" => 0o1000,
        "stat.S_IRWXU" => 0o700,
        "stat.S_IRUSR" => 0o400,
        "stat.S_IWUSR" => 0o200,
        "stat.S_IXUSR" => 0o100,
        "stat.S_IRWXG" => 0o070,
        "stat.S_IRGRP" => 0o040,
        "stat.S_IWGRP" => 0o020,
        "stat.S_IXGRP" => 0o010,
        "stat.S_IRWXO" => 0o007,
        "stat.S_IROTH" => 0o004,
        "stat.S_IWOTH" => 0o002,
        "stat.S_IXOTH" => 0o001,
        "signal.SIGKILL" => 9,
        "signal.SIGTERM" => 15,
        "signal.SIGSTOP" => 19,
        "socket.SOCK_RAW" | "socket.SocketKind.SOCK_RAW" => 3,
        "socket.AF_PACKET" | "socket.PF_PACKET" | "socket.AddressFamily.AF_PACKET" => 17,
        "socket.SOCK_NONBLOCK" => 0o4000,
        "socket.SOCK_CLOEXEC" => 0o2000000,
        "os.O_RDONLY" => 0,
        "os.O_WRONLY" => 0o1,
        "os.O_RDWR" => 0o2,
        "os.O_CREAT" => 0o100,
        "os.O_TRUNC" => 0o1000,
        "os.O_APPEND" => 0o2000,
        "os.O_EXCL" => 0o200,
        "os.O_NOCTTY" => 0o400,
        "os.O_NONBLOCK" => 0o4000,
        "os.O_DSYNC" => 0o10000,
        "os.O_DIRECT" => 0o40000,
        "os.O_NOFOLLOW" => 0o400000,
        "os.O_CLOEXEC" => 0o2000000,
        "os.O_SYNC" => 0o4010000,
        _ => return None,
    })
}

/// Text constants (`os.sep`).
pub fn text_constant(name: &str) -> Option<&'static str> {
    match name {
        "os.sep" | "os.path.sep" => Some("/"),
        "os.pathsep" | "os.path.pathsep" => Some(":"),
        "os.curdir" | "os.path.curdir" => Some("."),
        "os.pardir" | "os.path.pardir" => Some(".."),
        "os.extsep" | "os.path.extsep" => Some("."),
        "os.linesep" => Some("\n"),
        // Where `.pth` files and `sitecustomize` go; the exact directory varies.
        "site.USER_SITE" => Some("~/.local/lib/\u{FFFD}/site-packages"),
        "sys.executable" => Some("python3"),
        "string.ascii_letters" => Some("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"),
        "string.ascii_lowercase" => Some("abcdefghijklmnopqrstuvwxyz"),
        "string.ascii_uppercase" => Some("ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
        "string.digits" => Some("0123456789"),
        "string.hexdigits" => Some("0123456789abcdefABCDEF"),
        "string.octdigits" => Some("01234567"),
        _ => None,
    }
}

/// Names whose values come from outside the program (and what is read or parsed from
/// them): its command line, its standard input.
pub fn from_outside(name: &str) -> bool {
    matches!(
        name,
        "sys.argv"
            | "sys.orig_argv"
            | "sys.stdin"
            | "builtins.input"
            | "argparse.ArgumentParser"
            | "optparse.OptionParser"
            | "getopt.getopt"
            | "getopt.gnu_getopt"
    )
}

/// Whether `module.name` is worth binding for `from module import *`.
pub fn star_exports(module: &str, name: &str) -> bool {
    let full = format!("{module}.{name}");
    api(&full).is_some() || constant(&full).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn platform_aliases_collapse() {
        // `posix.system` and `nt.system` are checked as `os.system`.
        assert_eq!(canonical_name("posix.system"), "os.system");
        assert_eq!(canonical_name("os.system"), "os.system");
        assert_eq!(canonical_name("_pickle"), "pickle");
    }

    #[test]
    fn star_exports_cover_known_calls() {
        // `from subprocess import *` brings `Popen` into reach of the rules.
        assert!(star_exports("subprocess", "Popen"));
        assert!(!star_exports("subprocess", "DEVNULL"));
    }
}
