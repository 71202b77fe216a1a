import ArgumentParser
import Foundation
import GripConfig
import GripEntitlements
import GripProtocol

/// Reads App Store signed data from a file or standard input and verifies it with the configured verifier.
enum SignedDataInput {
    /// The compact JWS in `path` (`-` = standard input). A JSON body is accepted too: `{"signedPayload": …}` as
    /// the App Store posts a V2 notification, or an object with `signedTransactionInfo` / `signedRenewalInfo`.
    static func read(_ path: String) throws -> String {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let contents = FileManager.default.contents(atPath: path) else {
                throw CLIExit.invalidInput.fail("cannot read \(path): no such file or not readable")
            }
            data = contents
        }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("{"),
            let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        {
            for key in ["signedPayload", "signedTransactionInfo", "signedRenewalInfo"] {
                if let jws = object[key] as? String { return jws }
            }
        }
        return text
    }

    /// Verifies `jws` as `kind` with the configuration's verifier, then checks the account binding.
    static func verify(
        _ jws: String, as kind: SignedDataImportKind, config: GriptrackConfig, now: Date
    ) async throws -> Result<VerifiedSignedData, VerificationFailure> {
        let verifier: AppStoreVerifier
        do {
            verifier = try AppStoreVerifier(configuration: try config.verifierConfiguration())
        } catch let error as ConfigError {
            throw CLIExit.invalidInput.fail("invalid configuration: \(error)")
        } catch {
            throw CLIExit.invalidInput.fail("invalid configuration: \(config.path ?? GriptrackConfig.defaultPath): \(error)")
        }
        do throws(VerificationFailure) {
            let verified = try await verifier.verify(jws, as: SignedDataKind(argumentName: kind.rawValue), now: now)
            try config.checkAccountBinding(verified)
            return .success(verified)
        } catch {
            return .failure(error)
        }
    }

    /// The failure line, with a hint when the configuration is the likely cause.
    static func message(_ failure: VerificationFailure, config: GriptrackConfig) -> String {
        var text = failure.description
        let file = config.path ?? GriptrackConfig.defaultPath
        switch failure.category {
        case .environment:
            text += " This installation accepts \(config.appStore.environment) data ([app_store] environment in \(file))."
        case .appIdentifier where config.appStore.environment == .production && config.appStore.appAppleId == 0:
            text += " Set [app_store] app_apple_id in \(file)."
        case .chain where config.appStore.trustedRoots.isEmpty:
            text += " Only data signed by Apple (Apple Root CA - G3) is trusted."
        default:
            break
        }
        return text
    }

    /// Pretty, key-sorted JSON text of a payload.
    static func pretty(_ json: String) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)),
            let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        else { return json }
        return String(decoding: data, as: UTF8.self)
    }

    /// `transaction`, `renewal info`, `notification`.
    static func name(_ kind: SignedDataKind) -> String {
        switch kind {
        case .transaction: "transaction"
        case .renewalInfo: "renewal info"
        case .notification: "notification"
        }
    }
}

/// `--as auto|transaction|renewal-info|notification`: the socket's PRO import `kind`, read from the command line.
extension SignedDataImportKind: ExpressibleByArgument {}
