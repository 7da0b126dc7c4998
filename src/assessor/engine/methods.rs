//! Method calls on values that are not modules: folded text methods (`join`, `format`,
//! `replace`, ...), sockets, files opened for writing, paths, and ctypes libc handles.
//!
//! Called by `calls::eval_call` when the callee is `object.method`.

use super::calls::{
    asks_for_environ, call_indirect, foreign_environ, hit, is_callable, libc_call, request_to,
    requested_url, send_out, text_value, Args, Sending,
};
use super::files::{file_access, open_file, path_method, written, Access};
use super::findings::Confidence;
use super::fold;
use super::rules;
use super::scan::Scanner;
use super::value::{own_pid_parts, piece, Kind, Piece, Taint, Value};

/// A method call on a value that is not a module: text methods fold, tracked objects
/// (paths, files, sockets, libc) apply their rules, anything else passes taint through.
pub(super) fn method_call(
    s: &mut Scanner<'_>,
    object: &Value,
    method: &str,
    args: &Args<'_>,
    at: u32,
) -> Value {
    let taint = object.taint;
    // Lists grow by what is added; files by what is written (streams and sockets do not
    // keep what passes through them).
    let grows = matches!(method, "append" | "extend")
        || matches!(method, "write" | "writelines") && taint.has(Taint::FILE_WRITE);
    let big = args.data_taint().has(Taint::BIG);
    // Small pieces count on a list or a file known to be one (a `deque(maxlen=...)`
    // drops its oldest items).
    let known = matches!(object.kind, Kind::Seq(_)) || taint.has(Taint::FILE_WRITE);
    if grows && (big || known) {
        s.note_growth(at, big);
    }
    // `ctx.wrap_socket(sock)`: the same connection, encrypted.
    if let ("wrap_socket", Some(sock)) = (method, args.get(0, "sock")) {
        if sock.taint.has(Taint::SOCKET) {
            return sock.clone();
        }
    }
    if taint.has(Taint::EXTERNAL) {
        match method {
            "add_argument" => s.note_argument_default(args),
            "set_defaults" => s.note_parser_defaults(args),
            // `parse_args(["--cmd", ...])`: the options are those given, not absent.
            "parse_args" | "parse_known_args" if !args.positional.is_empty() => {
                s.note_arguments_given()
            }
            _ => {}
        }
    }
    if taint.has(Taint::PATH) {
        return path_method(s, object, method, args, at);
    }
    let logs = matches!(
        method,
        "debug" | "info" | "warning" | "warn" | "error" | "critical" | "exception" | "log"
    );
    if logs && !matches!(object.kind, Kind::Dict(_) | Kind::Seq(_)) {
        super::calls::log_record(s, args, at);
    }
    if destroys_database(object, method, args) {
        hit(s, rules::DESTRUCTIVE, at, Confidence::High);
    }
    let writes = matches!(
        method,
        "communicate" | "write" | "writelines" | "sendline" | "send"
    );
    if taint.has(Taint::CODE_STDIN) && writes {
        if let Some(input) = args.get(0, "input") {
            super::process_calls::code_fed(s, object, input, at);
        }
    }
    // `gen.send(x)` on a generator of the program's own: one of the values it yields
    // (which one depends on how far it has run; the one the rules can follow is kept),
    // made from what it is sent (a filter fed `os.environ.items()` one pair at a time).
    if let (Kind::Seq(items), "send") = (&object.kind, method) {
        let sent = args.data_taint();
        return (items.iter()).fold(Value::unknown(sent), |one, item| {
            super::scan::either(Value::unknown(sent), one, item.clone())
        });
    }
    if taint.has(Taint::QUEUE) {
        if let Some(value) = s.queue_method(method, args.get(0, "item")) {
            return value;
        }
    }
    if taint.has(Taint::FILE_WRITE) && matches!(method, "write" | "writelines") {
        written(s, object, args.data_taint(), at);
        return Value::UNKNOWN;
    }
    // `fh.truncate(0)` of a file opened for writing empties it (a system file destroyed).
    if taint.has(Taint::FILE_WRITE) && method == "truncate" {
        let size = args.get(0, "size").and_then(Value::as_int);
        let known = object.exact_text().is_some();
        super::files::overwrite(s, object, known && size == Some(0), at);
        return Value::UNKNOWN;
    }
    if matches!(method, "write" | "add") && !taint.has(Taint::FILE_WRITE) {
        // `ZipFile.write(path)`, `TarFile.add(path)`: archiving a file reads it.
        if let Some(path) = args.positional.first() {
            file_access(s, path, Access::Read, at);
        }
    }
    if matches!(method, "extractall" | "extract") && taint.has(Taint::NETWORK) {
        // An archive fetched from the network, unpacked: every file below is a download.
        let dir = match method {
            "extractall" => args.get(0, "path"),
            _ => args.get(1, "path"),
        };
        // Into the working directory when not told, else where told (when known, if only
        // in part: `mkdtemp(prefix="build-")`).
        s.caps
            .note_unpacked(dir.and_then(Value::text).unwrap_or("."));
        return Value::UNKNOWN;
    }
    // What a cloud's secret stores hold: AWS Secrets Manager and SSM parameters (asked
    // of the cloud's client, not pydantic's `SecretStr.get_secret_value()`), Kubernetes
    // secrets. Read, not yet sent anywhere.
    let aws = matches!(method, "get_secret_value" | "batch_get_secret_value")
        || matches!(
            method,
            "get_parameter" | "get_parameters" | "get_parameters_by_path"
        ) && args.keyword("WithDecryption").and_then(Value::as_int) == Some(1);
    let kubernetes = matches!(
        method,
        "list_namespaced_secret" | "list_secret_for_all_namespaces" | "read_namespaced_secret"
    );
    if aws && taint.has(Taint::NETWORK) || kubernetes {
        hit(s, rules::SECRET_READ, at, Confidence::High);
        return Value::unknown(Taint::SECRET);
    }
    if matches!(method, "get_credentials" | "get_frozen_credentials") {
        // A cloud SDK session's keys (`boto3.Session().get_credentials()`).
        return Value::unknown(Taint::CREDENTIAL);
    }
    // `server.register_function(subprocess.getoutput)`: each client calls it with
    // arguments of its own.
    if taint.has(Taint::SOCKET) && method == "register_function" {
        if let Some(function) = args.get(0, "function").cloned() {
            let remote = Value::unknown(Taint::NETWORK);
            super::calls::call_indirect(s, &function, vec![remote.clone(), remote], at);
        }
        return Value::UNKNOWN;
    }
    if taint.has(Taint::SOCKET) {
        send_out(s, args, at, Sending::Data);
        if matches!(method, "connect" | "connect_ex") {
            super::calls::scans(s, args.get(0, "address"), at);
        }
        return socket_method(s, object, method, at);
    }
    if taint.has(Taint::NETWORK) {
        // A client's `post`, `request`, `sendmail`, `storbinary`... sends its arguments;
        // `login`, `add_header` and the like present the program's credentials, as an
        // SSH client's `connect(host, username=..., pkey=key)` does.
        let sending = match method {
            // `session.headers.update({"Authorization": ...})` sets them for every request.
            "login" | "add_header" | "putheader" | "auth_plain" | "auth_login" | "set_auth"
            | "auth" | "update" | "connect" | "auth_publickey" | "auth_password" => {
                Sending::Credentials
            }
            _ => Sending::Request,
        };
        send_out(s, args, at, sending);
        downloaded_to_file(s, method, args, at);
        // `session.get(url)`, `client.request("GET", url)`, `opener.open(url)`.
        let requests = matches!(
            method,
            "get"
                | "post"
                | "put"
                | "patch"
                | "delete"
                | "head"
                | "options"
                | "request"
                | "stream"
                | "open"
                | "urlopen"
                | "fetch"
        );
        if requests {
            request_to(s, requested_url(args), at);
        }
        if matches!(method, "exec_command" | "run" | "sudo") {
            let command = args.get(0, "command");
            super::process_calls::remote_command(s, command, at);
        }
        // `sftp.put(local, remote)`, `s3.upload_file(local, bucket, key)`: the local file
        // is read and sent.
        if matches!(method, "put" | "upload" | "upload_file" | "put_file") {
            if let Some(local) = args.positional.first() {
                file_access(s, local, Access::Read, at);
            }
        }
    }
    if taint.has(Taint::FOREIGN_PROCESS) {
        if matches!(method, "kill" | "terminate" | "send_signal" | "suspend") {
            hit(s, rules::KILL_OTHERS, at, Confidence::High);
        }
        // Another process's environment (`/proc/<pid>/environ`) holds its secrets.
        let environ = method == "environ" || method == "as_dict" && asks_for_environ(args);
        if environ && !taint.has(Taint::CHILD) {
            return foreign_environ(s, Taint::NONE, at);
        }
        return Value::unknown(taint);
    }
    if taint.has(Taint::LIBC) {
        libc_call(s, method, args, at);
        return Value::unknown(taint);
    }
    if let Some(value) = scheduled_call(s, method, args, at) {
        return value;
    }
    registered_callback(s, method, args, at);
    if let Kind::Text { .. } = object.kind {
        if let Some(value) = text_method(s, object, method, args) {
            return value;
        }
    }
    if let Kind::Dict(pairs) = &object.kind {
        match method {
            "get" => {
                // A key it lacks gives the default, or what the dict stands for when it
                // is one of two (`(update.get("message") or {}).get("text", "")`).
                let key = args.positional.first().cloned().unwrap_or(Value::UNKNOWN);
                let missing = || match args.positional.get(1) {
                    Some(default) => default.clone().tainted(object.taint.data()),
                    None => Value::unknown(object.deep_taint().data()),
                };
                return object.get(&key).cloned().unwrap_or_else(missing);
            }
            "values" => return s.folder.seq(pairs.iter().map(|(_, v)| v.clone()).collect()),
            "keys" => return s.folder.seq(pairs.iter().map(|(k, _)| k.clone()).collect()),
            "items" => {
                let items = pairs
                    .iter()
                    .map(|(k, v)| s.folder.seq(vec![k.clone(), v.clone()]))
                    .collect();
                return s.folder.seq(items);
            }
            _ => return Value::unknown(object.deep_taint().data().with(args.data_taint())),
        }
    }
    if let (Kind::Seq(items), "pop" | "popleft") = (&object.kind, method) {
        // `todo.pop()`: the last item (or the one at the index given; a deque's
        // `popleft()` the first); a work list popped in a loop is walked once, with the
        // item it starts from.
        let last = if method == "popleft" { 0 } else { -1 };
        let index = args
            .positional
            .first()
            .and_then(Value::as_int)
            .unwrap_or(last);
        let index = if index < 0 {
            i64::try_from(items.len()).unwrap_or(0) + index
        } else {
            index
        };
        if let Some(item) = usize::try_from(index).ok().and_then(|i| items.get(i)) {
            return item.clone();
        }
    }
    // `buf.tobytes()` of an array or a memoryview: the same bytes.
    if method == "tobytes" {
        return object.clone();
    }
    if let (Some(n), "to_bytes") = (object.as_int(), method) {
        return int_to_bytes(s, n, args);
    }
    if matches!(method, "read" | "read_file") {
        // `configparser.read(path)` (or a list of paths): a reader of files given by path.
        let paths = match args.positional.first() {
            Some(first) => first
                .items()
                .map_or_else(|| vec![first.clone()], <[Value]>::to_vec),
            None => Vec::new(),
        };
        let mut read_taint = Taint::NONE;
        for path in paths.iter().filter(|p| p.text().is_some()) {
            read_taint = read_taint.with(open_file(s, path, None, at).taint.data());
        }
        if !paths.is_empty() && paths.iter().all(|p| p.text().is_some()) {
            return Value::unknown(taint.data().with(read_taint));
        }
    }
    Value::unknown(taint.data().with(args.data_taint()))
}

/// Credentials of several services joined into one text (`";".join(f"{k}={env[k]}" for k
/// in KEYS)`) are a harvest, not one service's login: the text is a secret to send
/// nowhere. Two are left alone (`":".join([user, password])` is one login).
fn harvested(items: &[Value]) -> Taint {
    const HARVEST: usize = 3;
    let credentials = items
        .iter()
        .filter(|item| item.deep_taint().has(Taint::CREDENTIAL))
        .count();
    match credentials >= HARVEST {
        true => Taint::SECRET,
        false => Taint::NONE,
    }
}

/// `str.maketrans(a, b[, c])`: kept as the list of its arguments for `translate`.
pub(super) fn maketrans(s: &mut Scanner<'_>, args: &[Value]) -> Value {
    if args.iter().all(|a| a.exact_text().is_some()) && (2..=3).contains(&args.len()) {
        return s.folder.seq(args.to_vec());
    }
    Value::unknown(
        args.iter()
            .fold(Taint::NONE, |t, a| t.with(a.deep_taint().data())),
    )
}

/// `text.translate(str.maketrans(from, to, delete))` of constant text.
fn translate(text: &str, table: &[Value]) -> Option<String> {
    let from: Vec<char> = table.first()?.exact_text()?.chars().collect();
    let to: Vec<char> = table.get(1)?.exact_text()?.chars().collect();
    let delete = table.get(2).and_then(Value::exact_text).unwrap_or("");
    if from.len() != to.len() {
        return None;
    }
    Some(
        text.chars()
            .filter(|c| !delete.contains(*c))
            .map(|c| from.iter().position(|f| *f == c).map_or(c, |i| to[i]))
            .collect(),
    )
}

/// `(0x6f73).to_bytes(2, "big")`: text spelled as a number, decoded like any encoding.
fn int_to_bytes(s: &mut Scanner<'_>, n: i64, args: &Args<'_>) -> Value {
    let length = args.get(0, "length").and_then(Value::as_int).unwrap_or(1);
    let little = args.get(1, "byteorder").and_then(Value::exact_text) == Some("little");
    let Ok(length) = usize::try_from(length) else {
        return Value::unknown(Taint::DECODED);
    };
    if length == 0 || length > 8 {
        return Value::unknown(Taint::DECODED);
    }
    let mut bytes: Vec<u8> = (0..length).rev().map(|i| (n >> (8 * i)) as u8).collect();
    if little {
        bytes.reverse();
    }
    let text = super::calls::bytes_text(&bytes).into_owned();
    text_value(s, &text, Taint::DECODED)
}

/// `executor.submit(f, a)`, `pool.map(f, items)`, `loop.call_soon(f, a)`: the function
/// is called with the arguments that follow it (an element of them for the `map`s).
fn scheduled_call(s: &mut Scanner<'_>, method: &str, args: &Args<'_>, at: u32) -> Option<Value> {
    let maps = matches!(
        method,
        "map" | "starmap" | "imap" | "imap_unordered" | "map_async" | "starmap_async"
    );
    // Run as a task of a pool or an event loop, not by this call.
    let starts = matches!(
        method,
        "submit"
            | "apply_async"
            | "map_async"
            | "starmap_async"
            | "run_in_executor"
            | "call_soon"
            | "call_later"
            | "call_soon_threadsafe"
            | "spawn"
    );
    let schedules = starts || matches!(method, "apply" | "run");
    if !(maps || schedules) {
        return None;
    }
    let position = args.positional.iter().position(is_callable)?;
    let target = args.positional[position].clone();
    let rest = &args.positional[position + 1..];
    let positional = match (maps, rest.first()) {
        (true, Some(items)) => match items.items().filter(|list| list.len() <= 16) {
            // `pool.map(os.system, [a, b])`: each item in turn.
            // What it returns are the calls' results, in order.
            Some(list) => {
                let results = list
                    .iter()
                    .map(|item| call_indirect(s, &target, vec![item.clone()], at))
                    .collect();
                return Some(Value::bounded_seq(results));
            }
            None => vec![items.element()],
        },
        (true, None) => Vec::new(),
        (false, _) => match (method, rest.first()) {
            // `pool.apply_async(f, (a, b))` takes the arguments as one tuple.
            ("apply" | "apply_async", Some(tuple)) => tuple
                .items()
                .map_or_else(|| vec![tuple.clone()], <[Value]>::to_vec),
            _ => rest.to_vec(),
        },
    };
    if starts {
        s.note_pool_task();
        // A future of what the call returns: its `result()`, or awaiting it, gives data
        // of that kind (`await loop.run_in_executor(None, fetch, url)`).
        let result = s.start_target(&target, positional, at);
        return Some(Value::unknown(result.deep_taint().data()));
    }
    let result = call_indirect(s, &target, positional, at);
    Some(match maps {
        true => super::flow::collection_of(result),
        false => result,
    })
}

/// A program function handed to an event source, called when the event comes with what
/// the source passes: `selector.register(sock, EVENT_READ, on_accept)` calls
/// `on_accept(sock, mask)` from the program's event loop, `loop.add_reader(fd, f, *args)`
/// calls `f(*args)`, `future.add_done_callback(f)` calls `f(future)`.
fn registered_callback(s: &mut Scanner<'_>, method: &str, args: &Args<'_>, at: u32) {
    let given = &args.positional;
    let (callback, arguments) = match (method, given.as_slice()) {
        ("register" | "modify", [source, _, callback, ..]) => {
            (callback, vec![source.clone(), Value::UNKNOWN])
        }
        ("add_reader" | "add_writer", [_, callback, rest @ ..]) => (callback, rest.to_vec()),
        ("add_done_callback", [callback]) => (callback, vec![Value::UNKNOWN]),
        _ => return,
    };
    if is_callable(callback) {
        let callback = callback.clone();
        s.apart_from_loops(|s| call_indirect(s, &callback, arguments, at));
    }
}

pub(super) fn socket_method(s: &mut Scanner<'_>, object: &Value, method: &str, at: u32) -> Value {
    match method {
        "connect" | "connect_ex" => {
            s.caps.socket_connect.get_or_insert(at);
            Value::UNKNOWN
        }
        // A listening socket that accepts has a remote party on it, as a connected one
        // has (a shell wired to it is a bind shell).
        "accept" => {
            s.caps.socket_connect.get_or_insert(at);
            Value::unknown(object.taint.with(Taint::NETWORK))
        }
        "fileno" | "makefile" | "dup" => Value::unknown(object.taint.with(Taint::NETWORK)),
        "recv" | "recvfrom" | "recv_into" | "read" => Value::unknown(Taint::NETWORK),
        _ => Value::unknown(object.taint.data()),
    }
}

/// Folds the string methods obfuscation uses; `None` when the method is not folded.
pub(super) fn text_method(
    s: &mut Scanner<'_>,
    object: &Value,
    method: &str,
    args: &Args<'_>,
) -> Option<Value> {
    let text = object.text()?;
    let taint = object.taint.data().with(args.data_taint());
    let first = args.positional.first();
    let value = match method {
        "join" => {
            let items: Vec<Value> = match first {
                Some(v) => v.items().map_or_else(|| vec![v.clone()], <[Value]>::to_vec),
                None => Vec::new(),
            };
            let mut pieces = Vec::with_capacity(items.len() * 2);
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    pieces.push(Piece::Known(text));
                }
                pieces.push(piece(item));
            }
            s.folder.join(pieces, taint.with(harvested(&items)))
        }
        // `string.Template(text).substitute(host=..., port=...)`: `$name`, `${name}`.
        "substitute" | "safe_substitute" => {
            let mut named: Vec<(&str, Value)> = args
                .keywords
                .iter()
                .filter_map(|(k, v)| k.map(|k| (k, v.clone())))
                .collect();
            if let Some(Kind::Dict(pairs)) = first.map(|f| &f.kind) {
                named.extend(
                    pairs
                        .iter()
                        .filter_map(|(k, v)| k.exact_text().map(|k| (k, v.clone()))),
                );
            }
            let pieces = fold::substitute_template(text, &named);
            s.folder.join(pieces, taint)
        }
        "format" => {
            // `**fields` of a dict with known keys names its fields as keywords do.
            let spread: Vec<(String, Value)> = (args.keywords.iter())
                .filter(|(k, _)| k.is_none())
                .filter_map(|(_, v)| match &v.kind {
                    Kind::Dict(pairs) if pairs.len() <= MAX_SPREAD_FIELDS => Some(pairs.iter()),
                    _ => None,
                })
                .flatten()
                .filter_map(|(k, v)| Some((k.exact_text()?.to_string(), v.clone())))
                .collect();
            let named: Vec<(&str, Value)> = (args.keywords.iter())
                .filter_map(|(k, v)| k.map(|k| (k, v.clone())))
                .chain(spread.iter().map(|(k, v)| (k.as_str(), v.clone())))
                .collect();
            let pieces = fold::substitute_named(text, &args.positional, &named, true);
            let parts = args.all().chain([object]);
            s.folder.join(pieces, taint.with(own_pid_parts(parts)))
        }
        "replace" => {
            let from = first.and_then(Value::exact_text)?;
            let to = args.positional.get(1).and_then(Value::exact_text)?;
            if from.is_empty() {
                return None;
            }
            let replaced = text.replace(from, to);
            s.folder.join([Piece::Known(&replaced)], object.taint)
        }
        "encode" | "decode"
            if first
                .and_then(Value::exact_text)
                .is_some_and(|e| e.contains("rot")) =>
        {
            text_value(s, &fold::rot13(text), taint.with(Taint::DECODED))
        }
        "encode" | "decode" | "strip" | "lstrip" | "rstrip" => {
            let trimmed = if method.contains("strip") {
                text.trim()
            } else {
                text
            };
            text_value(s, trimmed, object.taint)
        }
        // `"etc/hosts".split("/")`: the parts, when the text and separator are known.
        "split" if object.exact_text().is_some() => {
            let sep = args.get(0, "sep");
            let parts: Vec<&str> = match sep.map(|f| (f.exact_text(), &f.kind)) {
                // Python's whitespace differs from Rust's past ASCII: such text is not folded.
                None | Some((_, Kind::NoneValue))
                    if text.is_ascii() && !text.contains(['\x1c', '\x1d', '\x1e', '\x1f']) =>
                {
                    text.split_ascii_whitespace().collect()
                }
                None | Some((_, Kind::NoneValue)) => return None,
                Some((Some(sep), _)) if !sep.is_empty() => text.split(sep).collect(),
                _ => return None,
            };
            let limited = args
                .get(1, "maxsplit")
                .is_some_and(|n| n.as_int() != Some(-1));
            if parts.len() > MAX_SPLIT_PARTS || limited {
                return None;
            }
            let items = (parts.iter())
                .map(|part| text_value(s, part, object.taint))
                .collect();
            s.folder.seq(items)
        }
        // `"o__system".partition("__")`: before, the separator, after.
        "partition" | "rpartition" if object.exact_text().is_some() => {
            let sep = first
                .and_then(Value::exact_text)
                .filter(|sep| !sep.is_empty())?;
            let found = match method {
                "partition" => text.split_once(sep),
                _ => text.rsplit_once(sep),
            };
            let parts = match (found, method) {
                (Some((before, after)), _) => [before, sep, after],
                (None, "partition") => [text, "", ""],
                (None, _) => ["", "", text],
            };
            let items = (parts.iter())
                .map(|part| text_value(s, part, object.taint))
                .collect();
            s.folder.seq(items)
        }
        "lower" => text_value(s, &text.to_lowercase(), object.taint),
        "upper" => text_value(s, &text.to_uppercase(), object.taint),
        "maketrans" => return Some(maketrans(s, &args.positional)),
        "translate" => {
            let table = first?.items()?;
            let translated = translate(text, table)?;
            text_value(s, &translated, taint.with(Taint::BUILT))
        }
        _ => return None,
    };
    Some(value)
}

/// Most parts a known text is split into item by item (more: a text of unknown parts).
const MAX_SPLIT_PARTS: usize = 64;

/// Most fields a `**dict` given to `format` is spread into (each call copies them).
const MAX_SPREAD_FIELDS: usize = 256;

/// A client method that saves what it fetches into a local file: `ftp.retrbinary(cmd,
/// out.write)` calls its callback with the data, `sftp.get(remote, local)` and
/// `s3.download_file(bucket, key, local)` write it to the path given.
fn downloaded_to_file(s: &mut Scanner<'_>, method: &str, args: &Args<'_>, at: u32) {
    let fetched = || vec![Value::unknown(Taint::NETWORK)];
    let local = match method {
        "retrbinary" | "retrlines" => {
            if let Some(callback) = args.get(1, "callback").cloned() {
                call_indirect(s, &callback, fetched(), at);
            }
            return;
        }
        "download_file" => args.get(2, "Filename"),
        // `sftp.get("/srv/tool.py", "tool.py")`: a remote path, then a local one; not
        // `session.get(url, params)` nor `data.get("state", "unknown")`.
        "get" | "fget" => {
            let remote = args.get(0, "remotepath").and_then(Value::exact_text);
            let is_path = |t: &str| !t.contains("://") && t.contains(['/', '.']);
            args.get(1, "localpath").filter(|p| {
                remote.is_some_and(|r| r.contains('/') && is_path(r))
                    && p.text().is_some_and(is_path)
            })
        }
        _ => None,
    };
    if let Some(local) = local.cloned() {
        written(s, &local, Taint::NETWORK, at);
    }
}

/// A database that is not the program's emptied: tables whose names were read from it
/// dropped or truncated one by one (`f'DROP TABLE "{name}"'` over its catalogue), its
/// reflected schema dropped (`meta.drop_all`), its collections or databases dropped by
/// the names it lists, a Redis server on another host flushed.
fn destroys_database(object: &Value, method: &str, args: &Args<'_>) -> bool {
    let foreign = object.taint.has(Taint::FOREIGN_DATABASE);
    let first = args.positional.first();
    let named_by_it = first.is_some_and(|v| v.deep_taint().has(Taint::FOREIGN_DATABASE));
    match method {
        "execute" | "executemany" | "executescript" | "exec_driver_sql" | "run" => {
            foreign && named_by_it && first.and_then(Value::text).is_some_and(empties_table)
        }
        "drop_all" => foreign,
        "drop_database" | "drop_collection" => foreign && named_by_it,
        "flushall" | "flushdb" => foreign,
        "execute_command" => {
            foreign
                && first.and_then(Value::text).is_some_and(|c| {
                    let c = c.to_ascii_uppercase();
                    c.starts_with("FLUSHALL") || c.starts_with("FLUSHDB")
                })
        }
        _ => false,
    }
}

/// SQL that drops a table, schema or database, truncates a table or deletes all its rows.
fn empties_table(sql: &str) -> bool {
    let upper = sql.to_ascii_uppercase();
    let words: Vec<&str> = upper.split_ascii_whitespace().collect();
    words.windows(2).any(|w| {
        w[0] == "DROP" && matches!(w[1], "TABLE" | "SCHEMA" | "DATABASE")
            || w[0] == "TRUNCATE"
            || w == ["DELETE", "FROM"] && !upper.contains("WHERE")
    })
}
