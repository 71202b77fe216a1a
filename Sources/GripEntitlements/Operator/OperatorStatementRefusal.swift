/// Why a signed operator statement was refused (nothing of it is applied).
public enum OperatorStatementRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not `base64url(JSON).base64url(signature)`, or the JSON is not a statement.
    case malformed
    /// The signature does not verify under the operator key this device trusts (forged, edited, or another key).
    case badSignature
    /// Signed for another account.
    case otherAccount(String)

    public var description: String {
        switch self {
        case .malformed: "not a signed operator statement"
        case .badSignature: "the signature does not match the operator key in this device's configuration"
        case .otherAccount(let account): "signed for account \"\(account)\", not this device's"
        }
    }
}
