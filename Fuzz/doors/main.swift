// libFuzzer harness for what the network doors decode before anything is authorised or stored (docs/fuzzing.md):
// griptrack-hub's whole request path up to the database (NotificationIntake: the body's JSON, the verifier, the
// fields the archive keys on) and the web app's request bodies (WebRequestBody: UTF-8, StrictJSON, the Codable
// types). The first byte picks the door; the rest is the body. The verifier trusts the App Store vectors' test root
// (as fuzz-jws), so mutations of the seeds (Fuzz/Corpus/doors: the hub repro's body, vector notifications wrapped
// as bodies, web bodies) reach the chain, signature and date checks. Every input must end in a decision, never a
// trap or a hang.

import Foundation
import FuzzSupport
@testable import GripEntitlements
@testable import GripHub
@testable import GripWeb

/// Not a top-level variable: those are the main actor's in Swift 6, and a task reading one would wait for the main
/// thread, which `fuzzMain` blocks until the task is done.
enum Doors {
    static let intake: NotificationIntake = {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let rootURL = repository.appendingPathComponent("Tests/GripEntitlementsTests/Vectors/certs/testCA.der")
        do {
            let root = try TrustRoot(derEncoded: Array(Data(contentsOf: rootURL)))
            let configuration = try AppStoreVerifier.Configuration(
                bundleId: "com.example", environment: .sandbox, appAppleId: 1234, trustRoots: [root])
            return NotificationIntake(verifier: try AppStoreVerifier(configuration: configuration))
        } catch {
            fatalError("cannot build the verifier from \(rootURL.path): \(error)")
        }
    }()

    /// 2025-11-01, when the vectors' certificates are valid.
    static let now = Date(timeIntervalSince1970: 1_761_955_200)
}

fuzzMain { data, size in
    var input = ByteReader(fuzzInput(data, size))
    let door = input.byte()
    let body = Array(input.bytes(input.remainingCount))
    switch door % 3 {
    case 0:
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            _ = await Doors.intake.decide(body: body, now: Doors.now)
            done.signal()
        }
        done.wait()
    case 1:
        _ = WebRequestBody.decode(RecordBody.self, from: body)
    default:
        _ = StrictJSON.isValid(body)
        _ = WebRequestBody.decode(EmptyBody.self, from: body)
    }
    return 0
}
