// libFuzzer harness for the configuration loader (docs/fuzzing.md, docs/config.md): any text → TOMLKit's parser →
// GriptrackConfig's key table, which must yield a configuration or a ConfigError naming a line of the text, never a
// trap. Seeds (Fuzz/Corpus/config) are systemd/griptrack.toml.example and the examples of docs/config.md.

import FuzzSupport
import GripConfig

fuzzMain { data, size in
    let text = String(decoding: fuzzInput(data, size), as: UTF8.self)
    do throws(ConfigError) {
        let config = try GriptrackConfig.parse(text, file: "fuzz.toml")
        // Building the verifier's configuration reads `trusted_roots` files: only without any.
        if config.appStore.trustedRoots.isEmpty { _ = try? config.verifierConfiguration() }
    } catch {
        // Lines are 1-based and within the text (TOML ends lines with LF or CRLF); the line an unknown or bad key is
        // reported on is the line that names it. Checked for bare names only: a quoted one (the message quotes any
        // name that is not a bare key, e.g. `app_store.""`) may be spelt with other quotes or escapes in the file.
        let lines = text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
        if let line = error.line {
            if line < 1 || line > lines.count { fuzzFailure("error on line \(line) of a \(lines.count)-line text: \(error)") }
            if let key = error.key, !key.hasSuffix("\""), let name = key.split(separator: ".").last,
               !String(lines[line - 1]).contains(name) {
                fuzzFailure("error names \(key) on line \(line), which is \"\(String(lines[line - 1]))\": \(error)")
            }
        }
        _ = error.description
    }
    return 0
}
