import Foundation

/// A compact JWS split into its three parts and decoded, before any cryptographic check.
struct CompactJWS: Sendable {
    struct Header: Decodable, Sendable {
        var alg: String?
        var x5c: [String]?
        var kid: String?
    }

    /// The exact ASCII bytes the signature covers: `header_b64 + "." + payload_b64`.
    let signingInput: [UInt8]
    let header: Header
    let payload: Data
    let signature: Data

    /// The payload as text, for printing.
    var payloadJSON: String { String(decoding: payload, as: UTF8.self) }

    /// Splits and decodes a compact JWS.
    ///
    /// - Throws: A `.format` failure for anything but three base64url parts with a JSON header.
    init(_ text: String) throws(VerificationFailure) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = trimmed.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw VerificationFailure(.format, "a compact JWS has 3 dot-separated parts, this has \(parts.count)")
        }
        guard let headerBytes = Self.base64URLDecode(parts[0]) else {
            throw VerificationFailure(.format, "the JWS header is not base64url")
        }
        guard let payload = Self.base64URLDecode(parts[1]) else {
            throw VerificationFailure(.format, "the JWS payload is not base64url")
        }
        let payloadText = String(decoding: payload, as: UTF8.self)
        guard let signature = Self.base64URLDecode(parts[2]) else {
            throw VerificationFailure(.format, "the JWS signature is not base64url", payloadJSON: payloadText)
        }
        do {
            self.header = try JSONDecoder().decode(Header.self, from: headerBytes)
        } catch {
            throw VerificationFailure(.format, "the JWS header is not a JSON object", payloadJSON: payloadText)
        }
        self.payload = payload
        self.signature = signature
        self.signingInput = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
    }

    /// Decodes base64url (RFC 7515: `-` and `_`, padding optional).
    static func base64URLDecode(_ part: Substring) -> Data? {
        guard !part.isEmpty else { return nil }
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let remainder = text.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { text += String(repeating: "=", count: 4 - remainder) }
        return Data(base64Encoded: text)
    }
}

/// The JSON decoder for App Store payloads: dates are (possibly fractional) milliseconds since 1970, and only
/// dates within ``AppStoreDates/plausible`` decode (anything else is a format error, never a date that a later
/// conversion to integers or to a certificate time could trap on).
func appStoreJSONDecoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .custom { decoder in
        let container = try decoder.singleValueContainer()
        let milliseconds = try container.decode(Double.self)
        guard let date = AppStoreDates.date(milliseconds: milliseconds) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\(milliseconds) ms since 1970 is not a date between 2000 and 2100")
        }
        return date
    }
    return decoder
}

/// The range of dates griptrack believes in App Store data and in the clock it checks certificates at.
enum AppStoreDates {
    /// 2000-01-01 to 2100-01-01 (UTC): App Store signed data began in 2021, and certificates carry years that
    /// swift-certificates can represent only within 0001-9999.
    static let plausible: ClosedRange<Date> =
        Date(timeIntervalSince1970: 946_684_800)...Date(timeIntervalSince1970: 4_102_444_800)

    /// The date `milliseconds` after 1970, or `nil` when it is not finite or not within ``plausible``.
    static func date(milliseconds: Double) -> Date? {
        guard milliseconds.isFinite else { return nil }
        let date = Date(timeIntervalSince1970: milliseconds / 1000)
        return plausible.contains(date) ? date : nil
    }
}

/// Reads the fields the verifier needs once the signature holds: the signed date and hints about the payload's kind.
struct PayloadProbe: Decodable {
    var signedDate: Date?
    var receiptCreationDate: Date?
    var notificationType: String?
    var notificationUUID: String?
    var bundleId: String?
    var transactionId: String?
    var receiptType: String?

    var kind: SignedDataKind? {
        if notificationType != nil || notificationUUID != nil { return .notification }
        if receiptType != nil { return nil }  // an AppTransaction: griptrack does not use them
        if bundleId != nil || transactionId != nil { return .transaction }
        return .renewalInfo  // renewal info is the one kind without a bundle id
    }
}
