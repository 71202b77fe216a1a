import Foundation

/// What happened to one piece of verified data in ``EntitlementState/applying(verified:now:)``.
public struct ApplyEvent: Hashable, Sendable {
    /// The fate of the data.
    public enum Disposition: Hashable, Sendable {
        /// Stored: it is now the newest data of its kind for the subscription.
        case applied
        /// Not newer (by `signedDate`) than what is held for this subscription: a replay or a duplicate.
        case replayIgnored
        /// A notification whose `notificationUUID` was already processed: a no-op.
        case duplicateNotification
        /// Signed more than ``EntitlementPolicy/offlineGrace`` before `now` and it would grant Pro: dropped.
        case tooOldToGrant
        /// Not usable, with the reason (no `originalTransactionId`, no `signedDate`, locally signed data).
        case ignored(String)
    }

    /// The kind of data.
    public let kind: SignedDataKind
    /// The subscription it concerns, when known.
    public let originalTransactionId: String?
    /// Its fate.
    public let disposition: Disposition
}

/// The new state and what happened to each piece of data.
public struct ApplyResult: Hashable, Sendable {
    /// The state after applying.
    public let state: EntitlementState
    /// One event per transaction, renewal info and notification, in order.
    public let events: [ApplyEvent]
}

extension EntitlementState {
    /// Applies verified data with replay protection; pure.
    ///
    /// - A transaction or renewal info replaces the one held for its `originalTransactionId` only if its
    ///   `signedDate` is strictly newer than that kind's current one, so a replayed pre-refund transaction cannot
    ///   undo a revocation (a refund reversal arrives as newer data and passes).
    /// - A notification whose `notificationUUID` was seen before is a no-op; otherwise its UUID is remembered and
    ///   its nested transaction and renewal info are applied as above.
    /// - Data signed more than ``EntitlementPolicy/offlineGrace`` before `now` may take access away but is dropped
    ///   if it would grant Pro.
    /// - Xcode/LocalTesting data and data without `originalTransactionId` or `signedDate` are ignored.
    /// - ``newestSignedDate`` rises to the newest `signedDate` seen; `now` is clamped to it first.
    ///
    /// - Parameters:
    ///   - verified: Data returned by an ``AppStoreVerifier``.
    ///   - now: The system clock.
    /// - Returns: The new state and one event per piece of data.
    public func applying(verified: VerifiedSignedData, now: Date) -> ApplyResult {
        var state = self
        let now = state.clampedNow(now)
        var events: [ApplyEvent] = []
        switch verified {
        case .transaction(let transaction):
            events.append(state.apply(transaction: transaction, now: now))
        case .renewalInfo(let renewal):
            events.append(state.apply(renewal: renewal, now: now))
        case .notification(let verifiedNotification):
            let notification = verifiedNotification.notification
            let otid = verifiedNotification.transaction?.payload.originalTransactionId
                ?? verifiedNotification.renewalInfo?.payload.originalTransactionId
            if let uuid = notification.payload.notificationUUID, state.processedNotificationUUIDs.contains(uuid) {
                return ApplyResult(
                    state: self,
                    events: [ApplyEvent(kind: .notification, originalTransactionId: otid, disposition: .duplicateNotification)])
            }
            if let environment = notification.payload.appIdentity.environment, !environment.isSignedByApple {
                return ApplyResult(
                    state: self,
                    events: [ApplyEvent(kind: .notification, originalTransactionId: otid, disposition: .ignored(Self.locallySigned))])
            }
            if let uuid = notification.payload.notificationUUID { state.processedNotificationUUIDs.insert(uuid) }
            state.raiseNewestSignedDate(notification.signedDate)
            events.append(ApplyEvent(kind: .notification, originalTransactionId: otid, disposition: .applied))
            if let transaction = verifiedNotification.transaction {
                events.append(state.apply(transaction: transaction, now: now))
            }
            if let renewal = verifiedNotification.renewalInfo {
                events.append(state.apply(renewal: renewal, now: now))
            }
        }
        state.lastSuccessfulVerification = state.clampedNow(now)
        return ApplyResult(state: state, events: events)
    }

    /// Remembers a verification failure for status output. Access is unchanged by construction: a permanent
    /// failure never upgrades anything and a retryable one never downgrades a cached Pro state.
    ///
    /// - Parameters:
    ///   - failure: What the verifier threw.
    ///   - now: The system clock.
    /// - Returns: The state with ``lastFailure`` set and nothing else changed.
    public func recording(failure: VerificationFailure, now: Date) -> EntitlementState {
        var state = self
        state.lastFailure = RecordedFailure(
            category: failure.category, isRetryable: failure.isRetryable, detail: failure.detail, at: clampedNow(now))
        return state
    }

    private static let locallySigned = "Xcode/LocalTesting data never grants access"

    private mutating func raiseNewestSignedDate(_ date: Date?) {
        guard let date else { return }
        newestSignedDate = max(newestSignedDate ?? date, date)
    }

    private mutating func apply(transaction verified: Verified<TransactionPayload>, now: Date) -> ApplyEvent {
        let payload = verified.payload
        return apply(
            kind: .transaction, originalTransactionId: payload.originalTransactionId,
            signedDate: payload.signedDate, environment: payload.environment, now: now,
            current: { $0.transaction?.signedDate },
            update: { $0.transaction = payload })
    }

    private mutating func apply(renewal verified: Verified<RenewalInfoPayload>, now: Date) -> ApplyEvent {
        let payload = verified.payload
        return apply(
            kind: .renewalInfo, originalTransactionId: payload.originalTransactionId,
            signedDate: payload.signedDate, environment: payload.environment, now: now,
            current: { $0.renewalInfo?.signedDate },
            update: { $0.renewalInfo = payload })
    }

    private mutating func apply(
        kind: SignedDataKind, originalTransactionId otid: String?, signedDate: Date?,
        environment: AppStoreEnvironment?, now: Date,
        current: (SubscriptionRecord) -> Date?, update: (inout SubscriptionRecord) -> Void
    ) -> ApplyEvent {
        func event(_ disposition: ApplyEvent.Disposition) -> ApplyEvent {
            ApplyEvent(kind: kind, originalTransactionId: otid, disposition: disposition)
        }
        guard let otid else { return event(.ignored("no originalTransactionId")) }
        guard let signedDate else { return event(.ignored("no signedDate, so it cannot be ordered against other data")) }
        guard environment?.isSignedByApple == true else { return event(.ignored(Self.locallySigned)) }

        var record = subscriptions[otid] ?? SubscriptionRecord(originalTransactionId: otid)
        if let held = current(record), signedDate <= held { return event(.replayIgnored) }
        update(&record)
        raiseNewestSignedDate(signedDate)

        let tooOld = signedDate.addingTimeInterval(EntitlementPolicy.offlineGrace) <= now
        if tooOld {
            var candidate = self
            candidate.subscriptions[otid] = record
            let grants = SubscriptionEvaluation(record: record, state: candidate, now: now)?.access.isPro ?? false
            if grants { return event(.tooOldToGrant) }
        }
        subscriptions[otid] = record
        return event(.applied)
    }
}
