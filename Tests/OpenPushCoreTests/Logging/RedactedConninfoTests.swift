import Testing
import OpenPushCore

@Suite struct RedactedConninfoTests {
    @Test(arguments: [
        ("postgres://app:s3cret@db.example.com:5432/openpush", "postgres://app:***@db.example.com:5432/openpush"),
        ("postgresql://app:p%40ss@db/openpush?sslmode=require", "postgresql://app:***@db/openpush?sslmode=require"),
        ("postgresql://app:a@b:c@db/openpush", "postgresql://app:***@db/openpush"),
        ("postgresql://db/openpush?user=app&password=s3cret&sslmode=require",
         "postgresql://db/openpush?user=app&password=***&sslmode=require"),
        ("postgresql://app@db/openpush", "postgresql://app@db/openpush"),
        ("postgresql:///openpush?host=/tmp", "postgresql:///openpush?host=/tmp"),
    ])
    func urlsKeepAllButThePassword(url: String, logged: String) {
        #expect(RedactedConninfo.redact(url) == logged)
    }

    @Test(arguments: [
        ("host=db user=app password=s3cret dbname=openpush", "host=db user=app password=*** dbname=openpush"),
        ("host=db password = s3cret dbname=openpush", "host=db password = *** dbname=openpush"),
        ("host=db password='se cr\\'et x' dbname=openpush", "host=db password=*** dbname=openpush"),
        ("PASSWORD=s3cret host=db", "PASSWORD=*** host=db"),
        ("host=/tmp/sock port=5433 dbname=openpush", "host=/tmp/sock port=5433 dbname=openpush"),
        ("host=db passwordfile=x", "host=db passwordfile=x"),
    ])
    func keywordsKeepAllButThePassword(conninfo: String, logged: String) {
        #expect(RedactedConninfo.redact(conninfo) == logged)
    }
}
