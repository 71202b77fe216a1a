// libFuzzer harness for the App Store signed-data verifier (docs/fuzzing.md): any text → compact JWS split and
// base64url (CompactJWS) → header and payload JSON → x5c certificates (DER, swift-certificates) → chain policy →
// ES256 signature → payload decoding. The verifier trusts the test root of the App Store vectors, so mutations of the
// seeds (Fuzz/Corpus/jws: the vectors of Tests/GripEntitlementsTests/Vectors) get as far as the chain and signature
// checks. Every input must end in a verified value or a VerificationFailure, never a trap.

import Foundation
import FuzzSupport
@testable import GripEntitlements

/// The vectors' test root, found from this file's place in the repository.
let verifier: AppStoreVerifier = {
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    let rootURL = repository.appendingPathComponent("Tests/GripEntitlementsTests/Vectors/certs/testCA.der")
    do {
        let root = try TrustRoot(derEncoded: Array(Data(contentsOf: rootURL)))
        let configuration = try AppStoreVerifier.Configuration(
            bundleId: "com.example", environment: .sandbox, appAppleId: 1234, trustRoots: [root])
        return try AppStoreVerifier(configuration: configuration)
    } catch {
        fatalError("cannot build the verifier from \(rootURL.path): \(error)")
    }
}()

/// 2025-11-01, when the vectors' certificates are valid.
let now = Date(timeIntervalSince1970: 1_761_955_200)

/// Runs the async verifier to completion from libFuzzer's synchronous callback.
func verifyBlocking(_ text: String) {
    let done = DispatchSemaphore(value: 0)
    Task {
        do throws(VerificationFailure) {
            _ = try await verifier.verify(text, now: now)
        } catch {
            _ = error.description
        }
        done.signal()
    }
    done.wait()
}

fuzzMain { data, size in
    let text = String(decoding: fuzzInput(data, size), as: UTF8.self)
    // Format parsing alone first: cheap, and most mutations end here.
    if let token = try? CompactJWS(text) {
        _ = token.payloadJSON
        verifyBlocking(text)
    }
    return 0
}
