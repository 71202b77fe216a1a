import Foundation

/// `POST /api/record`'s body: every field optional; an empty string is as if absent.
struct RecordBody: Decodable, Sendable {
    var hand: String?
    var label: String?
    var `protocol`: String?
    var save: Bool?
    var protocolMaxKg: Double?

    enum CodingKeys: String, CodingKey {
        case hand, label, `protocol`, save
        case protocolMaxKg = "protocol_max_kg"
    }
}

/// The body of a request that takes no fields (`/api/stop`, `/api/tare`): a JSON object, whatever it holds.
struct EmptyBody: Decodable, Sendable {}

/// How the web app reads a request body (docs/web.md, "Requests"): strict JSON in UTF-8, decoded into the
/// endpoint's type, so a field of the wrong type (`true` for a number, `1` for a boolean) is refused by name.
enum WebRequestBody {
    /// Decodes `bytes` as `Body`.
    ///
    /// Why a body was refused: the sentence its 400 carries.
    struct Problem: Error, Equatable {
        let message: String
    }

    /// - Returns: The body, or why it was refused.
    static func decode<Body: Decodable>(_ type: Body.Type, from bytes: [UInt8]) -> Result<Body, Problem> {
        // UTF-8 only (RFC 8259 §8.1): a decoder that guessed UTF-16 from the first bytes would read a body no other
        // client meant; a byte-order mark is not JSON either.
        guard String(validating: bytes, as: UTF8.self) != nil, !bytes.starts(with: [0xEF, 0xBB, 0xBF]) else {
            return .failure(Problem(message: "the body must be JSON in UTF-8"))
        }
        guard bytes.first(where: { !Self.whitespace.contains($0) }) == UInt8(ascii: "{") else {
            return .failure(Problem(message: "the body must be a JSON object, e.g. {\"hand\":\"left\",\"label\":\"max hangs\"}"))
        }
        guard StrictJSON.isValid(bytes) else {
            return .failure(Problem(message: "the body is not strict JSON (a trailing comma, a repeated key, or a syntax error): send one JSON object"))
        }
        do {
            return .success(try JSONDecoder().decode(Body.self, from: Data(bytes)))
        } catch DecodingError.typeMismatch(let expected, let context) {
            return .failure(Problem(message: "\(Self.path(context)) must be \(Self.name(expected))"))
        } catch DecodingError.valueNotFound(let expected, let context) {
            return .failure(Problem(message: "\(Self.path(context)) must be \(Self.name(expected)), not null"))
        } catch {
            return .failure(Problem(message: "the body is not valid JSON: send one JSON object, e.g. {\"hand\":\"left\"}"))
        }
    }

    private static let whitespace: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]

    private static func path(_ context: DecodingError.Context) -> String {
        let path = context.codingPath.map(\.stringValue).joined(separator: ".")
        return path.isEmpty ? "the body" : path
    }

    private static func name(_ type: Any.Type) -> String {
        switch type {
        case is Bool.Type: "true or false"
        case is Double.Type, is Float.Type, is Int.Type: "a number"
        case is String.Type: "a string"
        default: "a JSON object"
        }
    }
}
