import Crypto
import Foundation
import GripSystem
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// Verifies App Store signed data (compact JWS, ES256, x5c chain) offline, without StoreKit.
///
/// The checks, in order; nothing the payload says is read before the signature and chain hold:
/// 1. exactly three base64url parts; a JSON header with `alg == "ES256"` and exactly three `x5c` certificates
///    (`x5c[2]` is never read: trust comes only from ``Configuration/trustRoots``);
/// 2. leaf → intermediate → trusted root under RFC 5280 at `now` (the verifier's own clock, never a date from the
///    payload), with Apple's WWDR intermediate OID and receipt-signer leaf OID;
/// 3. the raw 64-byte r‖s ES256 signature over `header.payload` with the leaf's P-256 key;
/// 4. the payload's dates, each between 2000 and 2100, and its `signedDate` at most ``maxClockSkew`` ahead of
///    `now` (else a retryable failure);
/// 5. bundle id (transactions, notifications), app Apple ID (notifications in Production), environment.
///
/// Xcode and LocalTesting data (one self-signed `x5c` certificate) fail step 1. No OCSP is done, so every
/// failure is permanent except a clock that disagrees with the data: a `signedDate` ahead of `now`, or `now`
/// before the certificates' validity (a Pi that booted without network time).
public struct AppStoreVerifier: Sendable {
    /// What the verifier accepts.
    public struct Configuration: Hashable, Sendable {
        /// The app's bundle identifier, e.g. `"app.griptrack"`.
        public var bundleId: String
        /// ``AppStoreEnvironment/sandbox`` or ``AppStoreEnvironment/production``.
        public var environment: AppStoreEnvironment
        /// The app's Apple ID; required in Production, where notifications must carry it.
        public var appAppleId: Int64?
        /// Roots the x5c chain must end at. Defaults to the pinned Apple Root CA - G3.
        public var trustRoots: [TrustRoot]

        /// Lets the verifier be configured for ``AppStoreEnvironment/xcode`` or
        /// ``AppStoreEnvironment/localTesting`` and then decode such data WITHOUT checking signature or chain.
        ///
        /// Internal on purpose: only `@testable import GripEntitlements` (test builds, `-enable-testing`)
        /// can set it, so a shipped binary cannot accept locally signed data.
        var allowsLocallySignedDataForTests = false

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - bundleId: The app's bundle identifier.
        ///   - environment: Sandbox or Production.
        ///   - appAppleId: The app's Apple ID (required for Production).
        ///   - trustRoots: Roots to trust; `nil` means the bundled, fingerprint-checked Apple Root CA - G3.
        /// - Throws: ``EntitlementError/invalidConfiguration(_:)`` if the bundled root fails its pin.
        public init(
            bundleId: String,
            environment: AppStoreEnvironment,
            appAppleId: Int64? = nil,
            trustRoots: [TrustRoot]? = nil
        ) throws(EntitlementError) {
            self.bundleId = bundleId
            self.environment = environment
            self.appAppleId = appAppleId
            if let trustRoots {
                self.trustRoots = trustRoots
            } else {
                self.trustRoots = [try TrustRoot.appleRootCAG3()]
            }
        }
    }

    /// How far a payload's `signedDate` may lie ahead of `now` (clock skew) before it is refused: 5 minutes.
    public static let maxClockSkew: TimeInterval = 300

    /// The configuration in use.
    public let configuration: Configuration
    private let rootStore: CertificateStore

    /// Creates a verifier.
    ///
    /// - Parameter configuration: What to accept.
    /// - Throws: ``EntitlementError/invalidConfiguration(_:)`` for an empty bundle id, no trust roots, an
    ///   environment other than Sandbox or Production, or Production without an app Apple ID.
    public init(configuration: Configuration) throws(EntitlementError) {
        guard !configuration.bundleId.isEmpty else { throw .invalidConfiguration("bundle id is empty") }
        guard !configuration.trustRoots.isEmpty else { throw .invalidConfiguration("no trust roots") }
        let env = configuration.environment
        if !env.isSignedByApple {
            let isLocal = env == .xcode || env == .localTesting
            guard isLocal && configuration.allowsLocallySignedDataForTests else {
                throw .invalidConfiguration("environment \(env) is not Sandbox or Production")
            }
        }
        if env == .production && configuration.appAppleId == nil {
            throw .invalidConfiguration("Production needs the app's Apple ID")
        }
        self.configuration = configuration
        self.rootStore = CertificateStore(configuration.trustRoots.map(\.certificate))
    }

    // MARK: - Public entry points

    /// Verifies a signed transaction (`signedTransactionInfo`).
    ///
    /// - Parameters:
    ///   - jws: The compact JWS text (surrounding whitespace is ignored).
    ///   - now: The current time (use the clamped "robust now"); the chain is checked at it.
    /// - Returns: The verified, decoded transaction.
    /// - Throws: ``VerificationFailure`` with its category.
    public func verifyTransaction(_ jws: String, now: Date) async throws(VerificationFailure) -> Verified<TransactionPayload> {
        try checkTransaction(try await verifySignature(jws, now: now))
    }

    private func checkTransaction(_ signed: SignedToken) throws(VerificationFailure) -> Verified<TransactionPayload> {
        let (token, signedDate) = (signed.token, signed.signedDate)
        let payload: TransactionPayload = try decode(token)
        guard payload.bundleId == configuration.bundleId else {
            throw VerificationFailure(
                .appIdentifier, "bundle id \(payload.bundleId.map { "\"\($0)\"" } ?? "missing"), expected \"\(configuration.bundleId)\"",
                payloadJSON: token.payloadJSON)
        }
        try checkEnvironment(payload.environment, token)
        return Verified(payload: payload, payloadJSON: token.payloadJSON, signedDate: signedDate)
    }

    /// Verifies signed renewal info (`signedRenewalInfo`). It has no bundle id: only the environment is checked.
    ///
    /// - Parameters:
    ///   - jws: The compact JWS text.
    ///   - now: The current time.
    /// - Returns: The verified, decoded renewal info.
    /// - Throws: ``VerificationFailure`` with its category.
    public func verifyRenewalInfo(_ jws: String, now: Date) async throws(VerificationFailure) -> Verified<RenewalInfoPayload> {
        try checkRenewalInfo(try await verifySignature(jws, now: now))
    }

    private func checkRenewalInfo(_ signed: SignedToken) throws(VerificationFailure) -> Verified<RenewalInfoPayload> {
        let (token, signedDate) = (signed.token, signed.signedDate)
        let payload: RenewalInfoPayload = try decode(token)
        try checkEnvironment(payload.environment, token)
        return Verified(payload: payload, payloadJSON: token.payloadJSON, signedDate: signedDate)
    }

    /// Verifies an App Store Server Notification V2 `signedPayload`, and then its nested
    /// `data.signedTransactionInfo` and `data.signedRenewalInfo` as a transaction and renewal info.
    ///
    /// - Parameters:
    ///   - jws: The compact JWS text.
    ///   - now: The current time.
    /// - Returns: The verified notification with its verified nested data.
    /// - Throws: ``VerificationFailure``; a nested failure keeps its category and names the field in its detail.
    public func verifyNotification(_ jws: String, now: Date) async throws(VerificationFailure) -> VerifiedNotification {
        try await checkNotification(try await verifySignature(jws, now: now), now: now)
    }

    private func checkNotification(_ signed: SignedToken, now: Date) async throws(VerificationFailure) -> VerifiedNotification {
        let (token, signedDate) = (signed.token, signed.signedDate)
        let payload: NotificationPayload = try decode(token)
        let identity = payload.appIdentity
        guard identity.bundleId == configuration.bundleId else {
            throw VerificationFailure(
                .appIdentifier, "bundle id \(identity.bundleId.map { "\"\($0)\"" } ?? "missing"), expected \"\(configuration.bundleId)\"",
                payloadJSON: token.payloadJSON)
        }
        if configuration.environment == .production, identity.appAppleId != configuration.appAppleId {
            throw VerificationFailure(
                .appIdentifier, "app Apple ID \(identity.appAppleId.map(String.init) ?? "missing"), expected \(configuration.appAppleId.map(String.init) ?? "none")",
                payloadJSON: token.payloadJSON)
        }
        try checkEnvironment(identity.environment, token)

        var transaction: Verified<TransactionPayload>?
        var renewal: Verified<RenewalInfoPayload>?
        do {
            if let nested = payload.data?.signedTransactionInfo {
                transaction = try await verifyTransaction(nested, now: now)
            }
        } catch {
            throw error.prefixed("data.signedTransactionInfo").withPayload(token.payloadJSON)
        }
        do {
            if let nested = payload.data?.signedRenewalInfo {
                renewal = try await verifyRenewalInfo(nested, now: now)
            }
        } catch {
            throw error.prefixed("data.signedRenewalInfo").withPayload(token.payloadJSON)
        }
        if let a = transaction?.payload.originalTransactionId, let b = renewal?.payload.originalTransactionId, a != b {
            throw VerificationFailure(
                .format, "nested transaction (\(a)) and renewal info (\(b)) belong to different subscriptions",
                payloadJSON: token.payloadJSON)
        }
        return VerifiedNotification(
            notification: Verified(payload: payload, payloadJSON: token.payloadJSON, signedDate: signedDate),
            transaction: transaction,
            renewalInfo: renewal)
    }

    /// Verifies signed data of any supported kind, recognising the kind from the payload's fields
    /// (`notificationType`/`notificationUUID` → notification, `bundleId`/`transactionId` → transaction,
    /// otherwise renewal info). For `griptrack pro verify FILE`.
    ///
    /// - Parameters:
    ///   - jws: The compact JWS text.
    ///   - now: The current time.
    /// - Returns: The verified data.
    /// - Throws: ``VerificationFailure``; an app transaction (`receiptType`) is a `.format` failure.
    /// Verifies `jws` as the kind its sender said it is, or by its payload when `kind` is `nil` (see
    /// ``verify(_:now:)``). The one entry point the CLI and the daemon share.
    ///
    /// - Parameters:
    ///   - jws: The compact JWS text.
    ///   - kind: What the data is said to be; `nil` to tell by its payload.
    ///   - now: The current time.
    /// - Returns: The verified data.
    /// - Throws: ``VerificationFailure``, also when the data is not of the kind said.
    public func verify(
        _ jws: String, as kind: SignedDataKind?, now: Date
    ) async throws(VerificationFailure) -> VerifiedSignedData {
        switch kind {
        case nil: try await verify(jws, now: now)
        case .transaction?: .transaction(try await verifyTransaction(jws, now: now))
        case .renewalInfo?: .renewalInfo(try await verifyRenewalInfo(jws, now: now))
        case .notification?: .notification(try await verifyNotification(jws, now: now))
        }
    }

    public func verify(_ jws: String, now: Date) async throws(VerificationFailure) -> VerifiedSignedData {
        let signed = try await verifySignature(jws, now: now)
        switch signed.probe.kind {
        case .transaction?: return .transaction(try checkTransaction(signed))
        case .renewalInfo?: return .renewalInfo(try checkRenewalInfo(signed))
        case .notification?: return .notification(try await checkNotification(signed, now: now))
        case nil:
            throw VerificationFailure(.format, "app transactions are not supported, only transactions, renewal info and notifications", payloadJSON: signed.token.payloadJSON)
        }
    }

    // MARK: - Steps

    private func decode<Payload: Decodable>(_ token: CompactJWS) throws(VerificationFailure) -> Payload {
        do {
            return try appStoreJSONDecoder().decode(Payload.self, from: token.payload)
        } catch {
            throw VerificationFailure(.format, "the payload does not decode as \(Payload.self): \(Self.reason(error))", payloadJSON: token.payloadJSON)
        }
    }

    private func checkEnvironment(_ environment: AppStoreEnvironment?, _ token: CompactJWS) throws(VerificationFailure) {
        guard environment == configuration.environment else {
            throw VerificationFailure(
                .environment, "environment \(environment?.rawValue ?? "missing"), expected \(configuration.environment)",
                payloadJSON: token.payloadJSON)
        }
    }

    /// A token whose signature and chain held, with what its payload says about its date and kind.
    private struct SignedToken {
        var token: CompactJWS
        var probe: PayloadProbe
        var signedDate: Date? { probe.signedDate ?? probe.receiptCreationDate }
    }

    /// Steps 1-4: format, chain at `now`, signature, then the payload's dates. Returns the checked token.
    private func verifySignature(_ jws: String, now: Date) async throws(VerificationFailure) -> SignedToken {
        let token = try CompactJWS(jws)
        let json = token.payloadJSON

        if !configuration.environment.isSignedByApple {
            // Only reachable when a test build set `allowsLocallySignedDataForTests` (see Configuration):
            // locally signed data has no chain to check, so it is decoded, never verified.
            return try checkedDates(of: token, now: now)
        }

        guard token.header.alg == "ES256" else {
            throw VerificationFailure(.format, "alg is \(token.header.alg.map { $0.quotedForLog(limit: 16) } ?? "missing"), only ES256 is accepted", payloadJSON: json)
        }
        guard let x5c = token.header.x5c else {
            throw VerificationFailure(.format, "the header has no x5c certificate chain", payloadJSON: json)
        }
        guard x5c.count == 3 else {
            throw VerificationFailure(.format, "x5c has \(x5c.count) certificate\(x5c.count == 1 ? "" : "s"), App Store data has 3", payloadJSON: json)
        }
        let leaf = try Self.certificate(x5c[0], name: "leaf", json)
        let intermediate = try Self.certificate(x5c[1], name: "intermediate", json)
        guard AppStoreDates.plausible.contains(now) else {
            throw VerificationFailure(
                .chain, "this device's clock reads \(now), not a date between 2000 and 2100; check the system time",
                isRetryable: true, payloadJSON: json)
        }
        if let notYet = [leaf, intermediate].first(where: { now < $0.notValidBefore }) {
            throw VerificationFailure(
                .chain, "this device's clock (\(now)) is before the certificate \(notYet.subject) is valid (\(notYet.notValidBefore)); check the system time",
                isRetryable: true, payloadJSON: json)
        }
        if let failure = await Self.validateChain(leaf: leaf, intermediate: intermediate, roots: rootStore, at: now) {
            throw failure.withPayload(json)
        }
        guard let key = P256.Signing.PublicKey(leaf.publicKey) else {
            throw VerificationFailure(.chain, "the leaf's key is not P-256", payloadJSON: json)
        }
        guard token.signature.count == 64,
            let signature = try? P256.Signing.ECDSASignature(rawRepresentation: token.signature)
        else {
            throw VerificationFailure(.signature, "an ES256 signature is 64 raw bytes, this one has \(token.signature.count)", payloadJSON: json)
        }
        guard key.isValidSignature(signature, for: token.signingInput) else {
            throw VerificationFailure(.signature, "the ES256 signature does not match the header and payload", payloadJSON: json)
        }
        return try checkedDates(of: token, now: now)
    }

    /// Step 4, on a token whose signature held: every date in range (the decoder's rule), `signedDate` not ahead.
    private func checkedDates(of token: CompactJWS, now: Date) throws(VerificationFailure) -> SignedToken {
        let probe: PayloadProbe
        do {
            probe = try appStoreJSONDecoder().decode(PayloadProbe.self, from: token.payload)
        } catch {
            throw VerificationFailure(.format, "the JWS payload is not an App Store JSON object: \(Self.reason(error))", payloadJSON: token.payloadJSON)
        }
        let signed = SignedToken(token: token, probe: probe)
        if let signedDate = signed.signedDate, signedDate > now.addingTimeInterval(Self.maxClockSkew) {
            throw VerificationFailure(
                .chain, "signedDate \(signedDate) is ahead of this device's clock (\(now)); check the system time",
                isRetryable: true, payloadJSON: token.payloadJSON)
        }
        return signed
    }

    /// A decoding error in one short line: the field's path and the reason.
    private static func reason(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context),
            .keyNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    private static func certificate(_ base64: String, name: String, _ json: String) throws(VerificationFailure) -> Certificate {
        guard let der = Data(base64Encoded: base64) else {
            throw VerificationFailure(.format, "the x5c \(name) certificate is not base64", payloadJSON: json)
        }
        do {
            return try Certificate(derEncoded: Array(der))
        } catch {
            throw VerificationFailure(.format, "the x5c \(name) certificate is not DER: \(error)", payloadJSON: json)
        }
    }

    /// Builds leaf → intermediate → root and applies RFC 5280 at `time` plus the App Store OID rules.
    ///
    /// - Returns: `nil` when the chain is valid, else a `.chain` failure.
    static func validateChain(
        leaf: Certificate, intermediate: Certificate, roots: CertificateStore, at time: Date
    ) async -> VerificationFailure? {
        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy(fixedExpiryValidationTime: time)
            AppStoreChainPolicy()
        }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore([intermediate]))
        switch result {
        case .validCertificate:
            return nil
        case .couldNotValidate(let failures) where failures.isEmpty:
            return VerificationFailure(.chain, "the certificates do not chain to a trusted root")
        case .couldNotValidate(let failures):
            let reasons = failures.map { $0.policyFailureReason.description }
            return VerificationFailure(.chain, "the certificate chain was refused at \(time): \(reasons.joined(separator: "; "))")
        }
    }
}
