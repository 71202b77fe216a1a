import ArgumentParser
import Foundation
import GripEntitlements

extension Griptrack.Admin {
    /// `griptrack admin key`: the operator key.
    struct Key: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "key", abstract: "Create the operator key.", subcommands: [Generate.self])
    }
}

extension Griptrack.Admin.Key {
    /// `griptrack admin key generate --out FILE`.
    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "generate",
            abstract: "Create an Ed25519 operator key; print its public half for the Pis' [sync] operator_key.",
            discussion: """
                Writes the private key to FILE (mode 600; an existing file is never overwritten) and prints the \
                public key. Keep FILE on the operator's machine only: whoever holds it can grant Pro to any account.
                """)

        @Option(help: ArgumentHelp("Where to write the private key.", valueName: "file"))
        var out: String

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() throws {
            let key = OperatorSigningKey()
            let descriptor = open(out, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            guard descriptor >= 0 else {
                throw CLIExit.error.fail(
                    "cannot create \(out): \(String(cString: strerror(errno))) (an existing key is never overwritten)")
            }
            let bytes = Array((key.text + "\n").utf8)
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
            guard written == bytes.count else { throw CLIExit.error.fail("cannot write \(out)") }
            if json {
                try printJSON(["private_key_file": out, "operator_key": key.publicKey.text])
                return
            }
            print("Operator key written to \(out) (keep it private).")
            print("Add to each Pi's griptrack.toml:")
            print("[sync]")
            print("operator_key = \"\(key.publicKey.text)\"")
        }
    }
}
