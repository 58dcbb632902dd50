/// What the id store answered when the package opened.
enum KeptIDs: Equatable, Sendable {
    /// These ids.
    case kept(InstallIDs)
    /// None yet (a first start, or a kit that kept its ids only in `state.json`).
    case empty
    /// It could not tell (the Keychain is locked or failed).
    case unavailable(ShopkeeperError)
}

/// How the package opens: its state, and the ids the id store must keep. Pure, so each case is tested alone.
struct Opening: Equatable, Sendable {
    /// The state to use.
    var state: LocalState
    /// Whether the state file must be written (it is new or its ids changed).
    var saveState: Bool
    /// Ids to write to the id store; `nil` when it holds them already or cannot be trusted now.
    var keep: InstallIDs?
}

extension LocalState {
    /// This install's ids as the state holds them.
    var ids: InstallIDs { InstallIDs(anonymousID: anonymousID, deviceID: deviceID) }

    /// The state of a new install with these ids.
    static func fresh(ids: InstallIDs) -> LocalState {
        LocalState(
            anonymousID: ids.anonymousID, appUserID: ids.anonymousID, deviceID: ids.deviceID,
            knownUserIDs: [ids.anonymousID], pendingPurchases: [], pendingConsumes: [], deliveredProofs: [:])
    }

    /// The id store is the truth for the ids:
    /// - kept ids and no state file: a reinstall, the same person on the same device: a new state with those ids;
    /// - no kept ids and a state file: a kit that kept its ids only in `state.json`: they move to the id store, once
    ///   (from then on the store has them);
    /// - neither: a first start, new ids for both;
    /// - both, differing (a failed write, a restored backup): the state takes the kept ids; the user it was signed in
    ///   as stays, unless that was its own anonymous id, and its old ids stay known so its waiting purchases are sent
    ///   for their buyer;
    /// - the id store unavailable: the state file's ids, written to the store at a later start; with no state file
    ///   either there is no telling who this is, so opening fails rather than making up a new person.
    static func opening(saved: LocalState?, kept: KeptIDs, new: @autoclosure () -> InstallIDs)
        throws(ShopkeeperError) -> Opening
    {
        switch (kept, saved) {
        case (.kept(let ids), nil):
            return Opening(state: .fresh(ids: ids), saveState: true, keep: nil)
        case (.kept(let ids), let saved?):
            guard saved.ids != ids else { return Opening(state: saved, saveState: false, keep: nil) }
            return Opening(state: saved.adopting(ids), saveState: true, keep: nil)
        case (.empty, let saved?):
            return Opening(state: saved, saveState: false, keep: saved.ids)
        case (.empty, nil):
            let ids = new()
            return Opening(state: .fresh(ids: ids), saveState: true, keep: ids)
        case (.unavailable, let saved?):
            return Opening(state: saved, saveState: false, keep: nil)
        case (.unavailable(let error), nil):
            throw error
        }
    }

    /// The state with another install's ids.
    func adopting(_ ids: InstallIDs) -> LocalState {
        var state = self
        if appUserID == anonymousID { state.appUserID = ids.anonymousID }
        state.anonymousID = ids.anonymousID
        state.deviceID = ids.deviceID
        if !state.knownUserIDs.contains(ids.anonymousID) { state.knownUserIDs.append(ids.anonymousID) }
        return state
    }
}
