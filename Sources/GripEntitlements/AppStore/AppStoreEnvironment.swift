/// The App Store environment that signed a piece of data, kept as its raw string so new values survive decoding.
///
/// Configure a verifier with exactly one of ``sandbox`` (TestFlight and development builds) or ``production``.
/// ``xcode`` and ``localTesting`` data is signed by a local key that chains to nothing and is always rejected
/// outside the test target.
public struct AppStoreEnvironment: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The raw value as Apple spells it, e.g. `"Sandbox"`.
    public let rawValue: String

    /// Creates an environment from Apple's raw value.
    ///
    /// - Parameter rawValue: The string found in the payload's `environment` field.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The sandbox environment: TestFlight and development builds.
    public static let sandbox = AppStoreEnvironment(rawValue: "Sandbox")
    /// The production App Store.
    public static let production = AppStoreEnvironment(rawValue: "Production")
    /// Xcode's StoreKit testing environment (signed locally, not by Apple).
    public static let xcode = AppStoreEnvironment(rawValue: "Xcode")
    /// StoreKit local testing (signed locally, not by Apple).
    public static let localTesting = AppStoreEnvironment(rawValue: "LocalTesting")

    /// Whether Apple's servers sign data in this environment (sandbox or production).
    public var isSignedByApple: Bool { self == .sandbox || self == .production }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
