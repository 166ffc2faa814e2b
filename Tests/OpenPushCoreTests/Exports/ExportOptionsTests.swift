import Testing
import OpenPushCore

/// The pure side of exports: CSV quoting, and the request bodies OneSignal's client sends.
@Suite struct ExportOptionsTests {
    @Test func csvQuotesOnlyWhatNeedsIt() {
        #expect(CSVLine.encode(["a", "b c", ""]) == "a,b c,\r\n")
        #expect(CSVLine.encode(["x,y", "say \"hi\"", "two\nlines", " padded"])
                == "\"x,y\",\"say \"\"hi\"\"\",\"two\nlines\",\" padded\"\r\n")
        #expect(CSVLine.encode(["{\"plan\": \"pro\"}"]) == "\"{\"\"plan\"\": \"\"pro\"\"}\"\r\n")
    }

    @Test func anEmptyBodyIsEverySubscriptionWithTheDefaultColumns() throws {
        let options = try SubscriptionExportOptions.parse([:])
        #expect(options.columns == SubscriptionExportColumn.defaults)
        #expect(options.lastActiveSince == nil && options.segmentName == nil && options.ignoredExtras.isEmpty)
    }

    @Test func extraFieldsAddKnownColumnsOnceAndNameTheIgnored() throws {
        let options = try SubscriptionExportOptions.parse([
            "extra_fields": ["country", "location", "country", "external_user_id", "ip"], "last_active_since": "1469392779",
            "segment_name": "Active Users", "app_id": "app_x",
        ])
        #expect(options.columns == SubscriptionExportColumn.defaults + [.country])
        #expect(options.ignoredExtras == ["location", "ip"])
        #expect(options.lastActiveSince == 1_469_392_779)
        #expect(options.segmentName == "Active Users")
        // What the job stores reads back the same.
        let stored = SubscriptionExportOptions(stored: options.stored)
        #expect(stored.columns == options.columns && stored.lastActiveSince == options.lastActiveSince
                && stored.segmentName == options.segmentName)
    }

    @Test func badOptionsAreNamedTogether() {
        #expect(throws: InvalidInput([
            "extra_fields: unknown field 'colour' (known: country, notification_types, device_model, device_os, game_version, "
                + "badge_count, ad_id, amount_spent, ip, location, playtime, rooted, sdk, test_type, unsubscribed_at, "
                + "unsubscribed_where, web_auth, web_p256)",
            "last_active_since must be unix seconds, as a string of digits",
            "segment_name must not be empty",
        ])) {
            try SubscriptionExportOptions.parse(["extra_fields": ["colour"], "last_active_since": "-5", "segment_name": ""])
        }
        #expect(throws: InvalidInput(["unknown field 'limit'"])) { try SubscriptionExportOptions.parse(["limit": 5]) }
    }

    @Test func historyBodies() throws {
        let request = try NotificationHistoryRequest.parse(["events": "clicked", "app_id": "app_x", "email": "a@example.com"])
        #expect(request.events == .clicked && request.appID == "app_x" && request.email == "a@example.com")
        #expect(request.events.exportKind == .notificationClicked)
        #expect(throws: InvalidInput(["events is required", "app_id is required"])) { try NotificationHistoryRequest.parse([:]) }
    }
}
