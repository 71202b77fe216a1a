import Foundation
import GripStore
import PostgresNIO

@testable import GripSync

/// Reads the server's tables directly, to compare with the stores (without migrating or checking the schema: a
/// test may have altered it on purpose).
extension SyncClient {
    func count(_ sql: String) async throws -> Int {
        try await withConnection(migrating: false) { connection throws(SyncError) in
            do {
                let rows: PostgresRowSequence = try await connection.query(
                    PostgresQuery(unsafeSQL: "SELECT (\(sql))::bigint"), logger: logger)
                for try await value in rows.decode(Int64?.self) {
                    guard let value else { return 0 }
                    return Int(value)
                }
                return 0
            } catch {
                throw SyncError(error, operation: "count")
            }
        }
    }

    func serverChunks() async throws -> [(uuid: UUID, chunk: RawSampleChunk)] {
        try await withConnection(migrating: false) { connection throws(SyncError) in
            do {
                var result: [(uuid: UUID, chunk: RawSampleChunk)] = []
                let rows: PostgresRowSequence = try await connection.query(
                    """
                    SELECT recording_uuid, sequence, encoding, first_micros, sample_count, samples
                    FROM sample_chunks ORDER BY recording_uuid, sequence
                    """, logger: logger)
                for try await (uuid, sequence, encoding, first, count, bytes) in rows.decode(
                    (UUID, Int32, Int16, Int64, Int32, ByteBuffer).self)
                {
                    result.append(
                        (uuid, RawSampleChunk(
                            sequence: Int(sequence), encoding: Int(encoding), firstMicros: first,
                            sampleCount: Int(count), bytes: Data(bytes.readableBytesView))))
                }
                return result
            } catch {
                throw SyncError(error, operation: "read chunks")
            }
        }
    }
}
