import ArgumentParser
import Foundation
import GripEntitlements
import GripProtocol

extension Griptrack.Pro {
    /// `griptrack pro verify`: checks signed data and prints its payload, changing nothing.
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Verify App Store signed data and print its payload, without changing anything.",
            discussion: """
                Checks a signed transaction, renewal info or App Store Server Notification V2 (a compact JWS, or \
                the JSON body with signedPayload) against the configuration's [app_store] settings: format, \
                certificate chain to the trusted root, ES256 signature, app identifier, environment. Exits 0 when \
                valid (with a warning when it was signed too long ago to grant Pro on its own) and 5 when invalid, \
                naming the category: format, certificate chain, signature, app identifier or environment.
                """
        )

        @OptionGroup var common: CommonOptions

        @Argument(help: ArgumentHelp("The signed data, or - for standard input.", valueName: "file"))
        var file: String

        @Option(name: .customLong("as"), help: "What the data is: auto, transaction, renewal-info or notification.")
        var kind: SignedDataImportKind = .auto

        @Option(help: ArgumentHelp("Verify as of this time instead of now (YYYY-MM-DD or ISO 8601).", valueName: "date"))
        var at: DateArgument?

        func run() async throws {
            let config = try common.loadConfig()
            let jws = try SignedDataInput.read(file)
            let now = at?.date ?? Date()
            let result = try await SignedDataInput.verify(jws, as: kind, config: config, now: now)
            switch result {
            case .success(let verified):
                let tooOld = verified.isTooOldToGrant(now: now)
                if common.json {
                    try printJSON(VerifyJSON(verified: verified, tooOld: tooOld))
                } else {
                    print(Self.summary(verified))
                    print(SignedDataInput.pretty(verified.payloadJSON))
                    if case .notification(let notification) = verified {
                        if let nested = notification.transaction {
                            print("data.signedTransactionInfo:")
                            print(SignedDataInput.pretty(nested.payloadJSON))
                        }
                        if let nested = notification.renewalInfo {
                            print("data.signedRenewalInfo:")
                            print(SignedDataInput.pretty(nested.payloadJSON))
                        }
                    }
                }
                if tooOld {
                    let signed = verified.signedDate.map { "signed \(Format.day($0))" } ?? "undated"
                    FileHandle.standardError.write(Data((
                        "griptrack: warning: valid, but \(signed): more than 7 days old, so it cannot grant Pro on its own "
                            + "(it may still end a subscription). Import fresh data from the App Store.\n").utf8))
                }
            case .failure(let failure):
                if common.json {
                    try printJSON(VerifyJSON(failure: failure))
                } else if let payload = failure.payloadJSON {
                    print(SignedDataInput.pretty(payload))
                }
                throw CLIExit.invalidInput.fail(SignedDataInput.message(failure, config: config))
            }
        }

        static func summary(_ verified: VerifiedSignedData) -> String {
            let signed = verified.signedDate.map { "signed \(ISO8601DateFormatter().string(from: $0))" } ?? "no signedDate"
            return "Valid App Store \(SignedDataInput.name(verified.kind)), \(signed)."
        }
    }
}

/// `griptrack pro verify --json`.
struct VerifyJSON: Encodable {
    var valid: Bool
    var kind: String?
    var category: String?
    var detail: String?
    var signedDate: Date?
    var tooOldToGrant: Bool?
    var payload: String?

    init(verified: VerifiedSignedData, tooOld: Bool) {
        valid = true
        kind = verified.kind.rawValue
        signedDate = verified.signedDate
        tooOldToGrant = tooOld
        payload = verified.payloadJSON
    }

    init(failure: VerificationFailure) {
        valid = false
        category = failure.category.rawValue
        detail = failure.detail
        payload = failure.payloadJSON
    }
}
