import Foundation
import GripEntitlements
import GripStore
import GripSystem
import Logging
import PostgresNIO

extension SyncClient {
    /// Pulls the account's App Store notifications that griptrack-hub stored and applies them through this
    /// device's own verifier and resolver (docs/account.md, "Pro follows the account").
    ///
    /// The rows are only a courier: each signed payload is verified again here (Apple's root, the chain, bundle id,
    /// environment) before the store applies it with its usual replay protection and dedupe, so the database can
    /// withhold a notification but never make this device believe one Apple did not sign. A purchase must also carry
    /// this account's `appAccountToken` (``accountToken``, else the account's UUID), as `pro import` requires: a
    /// genuine notification of another account copied into this account's rows is refused, not applied.
    ///
    /// - Parameters:
    ///   - store: The local database.
    ///   - verifier: This device's verifier (`[app_store]`).
    ///   - context: Bypass flag, for the access before and after.
    ///   - now: The clock.
    /// - Returns: How many rows were applied, ignored and refused.
    /// - Throws: ``SyncError``.
    @discardableResult
    package func pullAccount(
        into store: RecordingStore, verifier: AppStoreVerifier, context: AccessContext, now: Date
    ) async throws(SyncError) -> AccountPull {
        let session = PushSession(client: self)
        do {
            let pull = try await pullAccount(into: store, verifier: verifier, context: context, now: now, in: session)
            await session.close()
            return pull
        } catch {
            await session.close()
            throw error
        }
    }

    /// ``pullAccount(into:verifier:context:now:)`` on a push's connection.
    @discardableResult
    func pullAccount(
        into store: RecordingStore, verifier: AppStoreVerifier, context: AccessContext, now: Date,
        in session: PushSession
    ) async throws(SyncError) -> AccountPull {
        let rows = try await accountNotifications(in: session)
        var pull = AccountPull()
        guard !rows.isEmpty else { return pull }
        let expected: (token: UUID, source: String)?
        if let accountToken {
            expected = (accountToken, "app_store.account_token")
        } else {
            expected = try await accountUUID(in: session).map { ($0, "the UUID of the account \(settings.account)") }
        }
        for row in rows {
            do throws(GripStoreError) {
                // Applied before (dedupe by the verified UUID happens in the store too; this only saves a verify).
                if try store.isNotificationProcessed(row.uuid) {
                    pull.alreadyApplied += 1
                    continue
                }
            } catch {
                throw .store(error)
            }
            let verified: VerifiedSignedData
            do {
                verified = .notification(try await verifier.verifyNotification(row.signedPayload, now: now))
            } catch {
                pull.refused += 1
                logger.info(
                    "Account notification refused",
                    metadata: ["notification.uuid": "\(row.uuid.quotedForLog())", "reason": "\(error.detail.quotedForLog(limit: 200))"])
                continue
            }
            guard let expected else {
                pull.refused += 1
                logger.info(
                    "Account notification refused",
                    metadata: ["notification.uuid": "\(row.uuid.quotedForLog())", "reason": "the account's UUID could not be read"])
                continue
            }
            if let failure = verified.accountBindingFailure(expected: expected.token, source: expected.source) {
                pull.refused += 1
                logger.info(
                    "Account notification refused",
                    metadata: ["notification.uuid": "\(row.uuid.quotedForLog())", "reason": "\(failure.detail.quotedForLog(limit: 200))"])
                continue
            }
            do throws(GripStoreError) {
                let result = try store.importVerified(
                    verified, jws: row.signedPayload, context: context, actor: "account \(settings.account)", now: now)
                if result.events.contains(where: { $0.disposition == .applied }) {
                    pull.applied += 1
                } else {
                    pull.alreadyApplied += 1
                }
            } catch {
                throw .store(error)
            }
        }
        return pull
    }

    /// Applies the account's central grants and revocations that verify under the operator's key
    /// (docs/account.md, "Central grants"): the newest verified statement decides (``AccountGrantRule``). Rows that
    /// do not verify (unsigned, edited, signed by another key or for another account) are counted and ignored.
    ///
    /// - Parameters:
    ///   - store: The local database.
    ///   - key: The operator key this device trusts.
    ///   - now: The clock (unused by the rule; the override keeps the statement's own dates).
    /// - Returns: How many statements verified, were refused, and whether the override changed.
    /// - Throws: ``SyncError``.
    @discardableResult
    package func pullGrants(into store: RecordingStore, key: OperatorKey, now: Date) async throws(SyncError) -> GrantPull {
        let session = PushSession(client: self)
        do {
            let pull = try await pullGrants(into: store, key: key, now: now, in: session)
            await session.close()
            return pull
        } catch {
            await session.close()
            throw error
        }
    }

    /// ``pullGrants(into:key:now:)`` on a push's connection.
    @discardableResult
    func pullGrants(
        into store: RecordingStore, key: OperatorKey, now: Date, in session: PushSession
    ) async throws(SyncError) -> GrantPull {
        let account = settings.account
        let logger = logger
        let limit = settings.timeouts.read
        let signed: [String] = try await session.run { connection throws(SyncError) in
            try await wait(.read("read the account's central grants"), on: connection, within: limit) { connection in
                var result: [String] = []
                let rows = try await connection.query(
                    "SELECT signed_statement FROM account_grants WHERE account = \(account)", logger: logger)
                for try await text in rows.checked(columns: 1).decode(String.self) { result.append(text) }
                return result
            }
        }
        var pull = GrantPull()
        var statements: [OperatorStatement] = []
        for text in signed {
            switch OperatorStatement.verify(text, key: key, account: account) {
            case .success(let statement): statements.append(statement)
            case .failure(let refusal):
                pull.refused += 1
                logger.info("Central grant refused", metadata: ["reason": "\(refusal)"])
            }
        }
        pull.verified = statements.count
        do throws(GripStoreError) {
            if let override = AccountGrantRule.decide(current: try store.manualOverride(), statements: statements) {
                try store.setManualOverride(override)
                pull.changed = true
            }
        } catch {
            throw .store(error)
        }
        return pull
    }

    /// The account's stored notifications, oldest signature first (so the resolver sees them in order).
    /// The account's UUID as its `accounts` row says (the app's `appAccountToken`), or `nil` without a row.
    private func accountUUID(in session: PushSession) async throws(SyncError) -> UUID? {
        let account = settings.account
        let logger = logger
        let limit = settings.timeouts.read
        return try await session.run { connection throws(SyncError) in
            try await wait(.read("read the account's UUID"), on: connection, within: limit) { connection in
                let rows = try await connection.query(
                    "SELECT account_uuid FROM accounts WHERE account = \(account)", logger: logger)
                for try await uuid in rows.checked(columns: 1).decode(UUID.self) {
                    return uuid
                }
                return nil
            }
        }
    }

    private func accountNotifications(
        in session: PushSession
    ) async throws(SyncError) -> [(uuid: String, signedPayload: String)] {
        let account = settings.account
        let logger = logger
        let limit = settings.timeouts.read
        return try await session.run { connection throws(SyncError) in
            try await wait(.read("read the account's App Store notifications"), on: connection, within: limit) {
                connection in
                var result: [(uuid: String, signedPayload: String)] = []
                let rows = try await connection.query(
                    """
                    SELECT notification_uuid, signed_payload FROM appstore_notifications
                    WHERE account = \(account) ORDER BY signed_at NULLS FIRST, received_at
                    """, logger: logger)
                for try await (uuid, payload) in rows.checked(columns: 2).decode((String, String).self) {
                    result.append((uuid, payload))
                }
                return result
            }
        }
    }
}

/// What one pull of the account's App Store data did.
package struct AccountPull: Sendable, Equatable {
    /// Notifications verified and applied (each may change access).
    package var applied = 0
    /// Notifications this device had applied before, or that changed nothing (an older replay).
    package var alreadyApplied = 0
    /// Rows whose signature, chain, bundle id or environment this device refused: nothing of them was stored.
    package var refused = 0

    /// An empty pull.
    package init() {}
}

/// What one pull of the account's central grants did.
package struct GrantPull: Sendable, Equatable {
    /// Statements that verified under the operator key.
    package var verified = 0
    /// Rows refused (unsigned, edited, another key or another account).
    package var refused = 0
    /// Whether this device's override changed.
    package var changed = false

    /// An empty pull.
    package init() {}
}
