/// A validated body of one of the two Live Activity send routes.
package struct LiveActivitySend: Sendable, Equatable {
    package var event: LiveActivityEvent
    package var activityID: String
    package var name: String
    /// ActivityKit `attributes`: start only.
    package var attributes: JSONObject?
    /// ActivityKit `content-state`.
    package var contentState: JSONObject
    /// Language code → template text.
    package var headings: [String: String]?
    package var contents: [String: String]?
    package var staleDate: Double?
    package var dismissalDate: Double?
    /// An explicit priority; `nil` means the event's default.
    package var priority: Int?
    package var relevanceScore: Double?
    package var sound: String?
    /// Lower-cased UUID text: start only.
    package var idempotencyKey: String?
    /// Start only; update and end target the path's activity id.
    package var targeting: AudienceTargeting?

    package init(event: LiveActivityEvent, activityID: String, name: String, attributes: JSONObject?, contentState: JSONObject,
                headings: [String: String]?, contents: [String: String]?, staleDate: Double?, dismissalDate: Double?,
                priority: Int?, relevanceScore: Double?, sound: String?, idempotencyKey: String?, targeting: AudienceTargeting?) {
        self.event = event
        self.activityID = activityID
        self.name = name
        self.attributes = attributes
        self.contentState = contentState
        self.headings = headings
        self.contents = contents
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.priority = priority
        self.relevanceScore = relevanceScore
        self.sound = sound
        self.idempotencyKey = idempotencyKey
        self.targeting = targeting
    }

    /// APNs priority: an explicit one wins; start and end default to 10, update to 5.
    package var effectivePriority: Int {
        priority ?? (event == .update ? 5 : 10)
    }
}

/// Validation of the two send routes' bodies. Every problem is reported, in the order of the
/// reference's Errors tables, then unknown fields in body order.
package enum LiveActivitySendParser {
    package static func parseStart(_ body: JSONObject) -> Result<LiveActivitySend, InvalidInput> {
        var reader = FieldReader(body)
        let eventOK = reader.value("event") == .string("start")
        if !eventOK { reader.problem(SendMessages.startEvent) }
        let activityID = readActivityID(&reader)
        let attributes = nonEmptyObject("event_attributes", &reader)
        let contentState = nonEmptyObject("event_updates", &reader)
        let contents = languageMap("contents", required: true, &reader)
        let headings = languageMap("headings", required: true, &reader)
        let name = readName(&reader)
        let staleDate = seconds("stale_date", &reader)
        if reader.object.isPresent("dismissal_date") {
            _ = reader.value("dismissal_date")
            reader.problem(SendMessages.dismissalOnStart)
        }
        let priority = readPriority(&reader)
        let relevance = readRelevance(&reader)
        let sound = firstNonBlank(["ios_sound", "sound"], &reader)
        let idempotencyKey = readIdempotencyKey(&reader)
        let targeting = AudienceTargeting.read(&reader)
        reader.rejectUnknownFields()
        guard reader.problems.isEmpty, let activityID, let attributes, let contentState, let name, let targeting else {
            return .failure(InvalidInput(reader.problems))
        }
        return .success(LiveActivitySend(
            event: .start, activityID: activityID, name: name, attributes: attributes, contentState: contentState,
            headings: headings, contents: contents, staleDate: staleDate, dismissalDate: nil, priority: priority,
            relevanceScore: relevance, sound: sound, idempotencyKey: idempotencyKey, targeting: targeting))
    }

    /// `activityID` comes from the path.
    package static func parseUpdateOrEnd(_ body: JSONObject, activityID: String) -> Result<LiveActivitySend, InvalidInput> {
        var reader = FieldReader(body)
        let event: LiveActivityEvent?
        switch reader.value("event") {
        case .string("update")?: event = .update
        case .string("end")?: event = .end
        default:
            event = nil
            reader.problem(SendMessages.updateOrEndEvent)
        }
        let contentState = nonEmptyObject("event_updates", &reader)
        var dismissalDate: Double?
        if reader.object.isPresent("dismissal_date") {
            if event == .update {
                _ = reader.value("dismissal_date")
                reader.problem(SendMessages.dismissalOnlyOnEnd)
            } else {
                dismissalDate = seconds("dismissal_date", &reader)
            }
        }
        let headings = languageMap("headings", required: false, &reader)
        let contents = languageMap("contents", required: false, &reader)
        let name = readName(&reader)
        let staleDate = seconds("stale_date", &reader)
        let priority = readPriority(&reader)
        let relevance = readRelevance(&reader)
        let sound = firstNonBlank(["sound", "ios_sound"], &reader)
        reader.rejectUnknownFields()
        guard reader.problems.isEmpty, let event, let contentState, let name else {
            return .failure(InvalidInput(reader.problems))
        }
        return .success(LiveActivitySend(
            event: event, activityID: activityID, name: name, attributes: nil, contentState: contentState,
            headings: headings, contents: contents, staleDate: staleDate, dismissalDate: dismissalDate, priority: priority,
            relevanceScore: relevance, sound: sound, idempotencyKey: nil, targeting: nil))
    }

    // MARK: fields

    static func readActivityID(_ reader: inout FieldReader) -> String? {
        guard case .string(let id)? = reader.value("activity_id"), !id.allSatisfy(\.isWhitespace) else {
            reader.problem(SendMessages.activityIDRequired)
            return nil
        }
        guard !id.contains("/") else {
            reader.problem(SendMessages.activityIDSlash)
            return nil
        }
        return id
    }

    static func nonEmptyObject(_ field: String, _ reader: inout FieldReader) -> JSONObject? {
        guard case .object(let object)? = reader.value(field), !object.isEmpty else {
            reader.problem(SendMessages.nonEmptyObject(field))
            return nil
        }
        return object
    }

    /// A language map whose `en` entry is a non-blank string; absent is fine when not required.
    static func languageMap(_ field: String, required: Bool, _ reader: inout FieldReader) -> [String: String]? {
        guard reader.object.isPresent(field) || required else {
            _ = reader.value(field)
            return nil
        }
        guard let map = reader.stringMap(field) else {
            if !reader.problems.contains(where: { $0.hasPrefix(field) }) { reader.problem(SendMessages.englishEntry(field)) }
            return nil
        }
        guard let english = map["en"], !english.allSatisfy(\.isWhitespace) else {
            reader.problem(SendMessages.englishEntry(field))
            return nil
        }
        // Templates render per recipient later; a template that does not parse is refused now.
        var valid = true
        for language in map.keys.sorted() {
            if let error = LiquidTemplate.validate(map[language]!) {
                reader.problem("\(field).\(language): \(error.message)")
                valid = false
            }
        }
        return valid ? map : nil
    }

    /// Required, at most 128 characters; the reference answers both faults with one message.
    static func readName(_ reader: inout FieldReader) -> String? {
        guard case .string(let name)? = reader.value("name"), !name.allSatisfy(\.isWhitespace), name.count <= 128 else {
            reader.problem(SendMessages.nameTooLong)
            return nil
        }
        return name
    }

    /// Unix seconds; a value at or above 1e11 is milliseconds by mistake.
    static func seconds(_ field: String, _ reader: inout FieldReader) -> Double? {
        guard let value = reader.value(field), value != .null else { return nil }
        guard let number = value.doubleValue, number.isFinite, number > 0 else {
            reader.problem("\(field) must be a unix timestamp in seconds")
            return nil
        }
        guard number < 1e11 else {
            reader.problem("\(field) must be a unix timestamp in seconds, not milliseconds")
            return nil
        }
        return number
    }

    static func readPriority(_ reader: inout FieldReader) -> Int? {
        guard let value = reader.value("priority"), value != .null else { return nil }
        guard let number = value.intValue, number == 5 || number == 10 else {
            reader.problem(SendMessages.priority)
            return nil
        }
        return Int(number)
    }

    /// A number in [0, 1]; a numeric string is parsed.
    static func readRelevance(_ reader: inout FieldReader) -> Double? {
        guard let value = reader.value("ios_relevance_score"), value != .null else { return nil }
        let number: Double? = switch value {
        case .string(let text): Double(text)
        default: value.doubleValue
        }
        guard let number, number >= 0, number <= 1 else {
            reader.problem(SendMessages.relevanceScore)
            return nil
        }
        return number
    }

    /// The first of the fields holding a non-blank string.
    static func firstNonBlank(_ fields: [String], _ reader: inout FieldReader) -> String? {
        var chosen: String?
        for field in fields {
            if let text = reader.string(field), !text.allSatisfy(\.isWhitespace), chosen == nil { chosen = text }
        }
        return chosen
    }

    static func readIdempotencyKey(_ reader: inout FieldReader) -> String? {
        guard let value = reader.value("idempotency_key"), value != .null else { return nil }
        guard case .string(let text) = value, let uuid = UUIDText.canonical(text) else {
            reader.problem(SendMessages.idempotencyKeyUUID)
            return nil
        }
        return uuid
    }
}

/// UUID text in its canonical lower-case 8-4-4-4-12 form, without Foundation.
package enum UUIDText {
    package static func canonical(_ text: String) -> String? {
        let lower = text.lowercased()
        let groups = lower.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12],
              groups.allSatisfy({ $0.utf8.allSatisfy(LiveActivityInput.isHexDigit) }) else { return nil }
        return lower
    }
}
