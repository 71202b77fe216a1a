import GripConfig
import Testing

/// Configuration texts `scripts/fuzz config` found (Fuzz/Corpus/config/regression-*): each must be a ConfigError
/// naming its line, never a trap in TOMLKit's C++ parser.
@Suite("Configuration parser regressions")
struct ConfigRegressionTests {
    static let problem = "a table name must start with a letter, a digit, _, - or a quote, e.g. [device]"

    /// Parsing `text` as `g.toml` throws exactly the error that names `line` and `problem`, and no key.
    static func expectError(
        parsing text: String, line: Int, problem: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            throws: ConfigError(file: "g.toml", line: line, key: nil, problem: problem), sourceLocation: sourceLocation
        ) { try GriptrackConfig.parse(text, file: "g.toml") }
    }

    @Test("a table header starting with a character TOMLKit asserts on is an error on its line", arguments: [
        ("[\u{FFFD}app_store]\nsted_r\u{FFFD}\u{FFFD}\u{FFFD}= []\n", 1),  // regression-header-non-ascii.toml
        ("[é]\n", 1),
        ("[entitlements]\nbypass = false\n[!device]\n", 3),
        ("# comment\r\n  [[ \u{7}x]]\r\n", 2),
        ("\u{FEFF}[", 1),
        ("[device]\nadapter = \"hci0\"\n[\n", 3),
        ("[[[app_store]\naccount_token = \"\"\n", 1),  // regression-header-triple-bracket.toml
    ])
    func badTableHeaderIsAnError(text: String, line: Int) {
        Self.expectError(parsing: text, line: line, problem: Self.problem)
    }

    @Test("headers TOMLKit can parse still reach it", arguments: ["[device]\n", " [ \"device\" ]\n", "[[x]]\n", "[]\n", "[ [x]]\n"])
    func goodHeadersPassTheCheck(text: String) {
        #expect(throws: ConfigError.self) { try GriptrackConfig.parse(text + "[!", file: "g.toml") }
        do throws(ConfigError) {
            _ = try GriptrackConfig.parse(text, file: "g.toml")
        } catch {
            #expect(error.problem != Self.problem)
        }
    }

    // regression-empty-key.toml: the message said `app_store.`, naming no key the file has.
    @Test("an unknown key that is not a bare key is named as TOML spells it, quoted, on its line", arguments: [
        ("[app_store]\na= \"\"\n\"\"=\"\"\n", 3, "app_store.\"\""),  // after `a`'s problem on line 2
        ("[app_store]\n\"dé\" = 1\n", 2, "app_store.\"dé\""),
        ("[app_store]\n'a\"b.c' = 1\n", 2, "app_store.\"a\\\"b.c\""),
        ("[app_store]\nbundle-id_2 = 1\n", 2, "app_store.bundle-id_2"),
        ("[\"\"]\nx = 1\n", 1, "\"\""),
    ])
    func quotedKeyNames(text: String, line: Int, key: String) {
        do throws(ConfigError) {
            _ = try GriptrackConfig.parse(text, file: "g.toml")
            Issue.record("no error for \(text)")
        } catch {
            // Every problem of the file is reported: this key's is among them, on its line.
            #expect(([error] + error.more).contains { $0.key == key && $0.line == line }, "\(error)")
        }
    }

    static let braceProblem = "expected a value or ']' before '}'"

    @Test("a '}' where an array element belongs is an error on its line, never TOMLKit's assertion", arguments: [
        ("[app_store]\ntrusted_roots = [}\n", 2),  // regression-array-close-brace.toml
        ("[app_store]\ntrusted_roots = [\"/a.pem\", }\n", 2),
        ("[app_store]\ntrusted_roots = [\n  # none yet\n\n}\n", 5),
        ("[device]\nname_prefix = \"\"\"\nmulti\nline\"\"\"\nadapter = [[}]]\n", 5),
        ("x = { y = [ }]}\n", 1),
    ])
    func braceInArrayIsAnError(text: String, line: Int) {
        Self.expectError(parsing: text, line: line, problem: Self.braceProblem)
    }

    @Test("'[}' inside strings and comments still reaches TOMLKit", arguments: [
        "[device]\nname_prefix = \"[}\"\n",
        "[device]\nname_prefix = '[}' # [}\n",
        "[device]\nname_prefix = \"a\\\"[}\"\n",
        "[device]\nname_prefix = \"\"\"x\"\"[}\"\"\"\n",
    ])
    func bracesInStringsPass(text: String) throws {
        let config = try GriptrackConfig.parse(text, file: "g.toml")
        #expect(config.device.namePrefix?.hasSuffix("[}") == true)
    }

    @Test("with CRLF line ends an error still names the line of its key", arguments: [
        ("[device]\r\nadapter = \"hci0\"\r\nbogus = 1\r\n", 3, "device.bogus"),
        ("# g\u{FFFD}co stops tfalse\r\n\n[recording]\n# I\n\n[entitents]\n#A='co\n\n[app_stoje]\n", 9, "app_stoje"),  // regression-crlf-line-numbers.toml, shortened
    ])
    func crlfLinesAreCounted(text: String, line: Int, key: String) {
        #expect {
            try GriptrackConfig.parse(text, file: "g.toml")
        } throws: { error in
            guard let error = error as? ConfigError else { return false }
            return ([error] + error.more).contains { $0.line == line && $0.key == key }
        }
    }
}
