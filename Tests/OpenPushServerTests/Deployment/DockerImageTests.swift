import Foundation
import Testing
import OpenPushTestSupport
import Subprocess

/// The container image, checked without a container engine: the Dockerfile read as text against
/// the binary this run built and this machine's Debian 12 package database.
///
/// The binary checked is the debug one `swift build --build-tests` (what `make test` runs)
/// leaves beside the tests: it links the same C libraries as the release build (the module maps'
/// `link` lines, which `cLibrariesOfTheModuleMapsAreAllLoaded` proves ldd lists), and differs
/// only in linking the Swift runtime dynamically, which the image links statically. A release
/// binary, when one is built, is checked too.
@Suite struct DockerImageTests {
    static let root = TestApp.repositoryRoot
    static let environment = ["PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "LC_ALL": "C"]

    static func dockerfile() throws -> Dockerfile {
        Dockerfile(try String(contentsOfFile: root + "/Dockerfile", encoding: .utf8))
    }

    static func binaries() throws -> [String] {
        let debug = OpenPushProcess.executablePath
        guard FileManager.default.isExecutableFile(atPath: debug) else {
            throw Subprocess.Failure("no openpush binary at \(debug): build it first with `swift build --build-tests`")
        }
        let release = root + "/.build/release/openpush"
        return FileManager.default.isExecutableFile(atPath: release) ? [debug, release] : [debug]
    }

    static func run(_ tool: String, _ arguments: [String]) async throws -> Subprocess.Output {
        try await Subprocess.run(tool, arguments, environment: environment)
    }

    /// Everything the check needs about `binary`, read from ldd, readelf and dpkg.
    static func check(_ binary: String, dockerfile: Dockerfile) async throws -> DockerImageCheck {
        let ldd = try await run("ldd", [binary])
        try #require(ldd.status == 0, "ldd \(binary): \(ldd.text)")
        let readelf = try await run("readelf", ["-d", binary])
        try #require(readelf.status == 0, "readelf -d \(binary): \(readelf.text)")
        let loaded = DockerImageCheck.parseLdd(ldd.text)
        // Each loaded file under every name dpkg may list it by (its path and its target, with and
        // without /usr); dpkg -S answers the ones it knows and complains about the others.
        var candidates: [String: [String]] = [:]
        for path in loaded.compactMap(\.path) where !DockerImageCheck.isSwiftRuntime(path) {
            let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            candidates[path] = DockerImageCheck.pathVariants(path) + DockerImageCheck.pathVariants(resolved)
        }
        let search = try await run("dpkg", ["-S"] + Set(candidates.values.joined()).sorted())
        let known = DockerImageCheck.parseDpkgSearch(search.text)
        let owners = candidates.compactMapValues { names in names.lazy.compactMap { known[$0] }.first }
        let query = try await run("dpkg-query", ["-W", "-f", "${Package}\t${Depends}\t${Pre-Depends}\n"])
        try #require(query.status == 0, "dpkg-query: \(query.text)")
        return DockerImageCheck(dockerfile: dockerfile, needed: DockerImageCheck.parseNeeded(readelf.text), loaded: loaded,
                                owners: owners, dependencies: DockerImageCheck.parseDependencies(query.text))
    }

    @Test func everySharedLibraryComesFromARuntimePackage() async throws {
        let dockerfile = try Self.dockerfile()
        for binary in try Self.binaries() {
            let check = try await Self.check(binary, dockerfile: dockerfile)
            #expect(check.loaded.count >= 8, "ldd listed too little for \(binary)")
            #expect(check.problems() == [], "\(binary)")
        }
    }

    /// Dropping any one package from the runtime stage's `apt-get install` fails the check, and
    /// the complaint names that package.
    @Test func droppingARuntimePackageFails() async throws {
        let text = try String(contentsOfFile: Self.root + "/Dockerfile", encoding: .utf8)
        let dockerfile = Dockerfile(text)
        let packages = try #require(dockerfile.runtime?.aptPackages)
        let check = try await Self.check(OpenPushProcess.executablePath, dockerfile: dockerfile)
        for package in packages where package != "ca-certificates" {
            var dropped = check
            dropped.dockerfile = Dockerfile(text.replacingOccurrences(of: " \(package) ", with: " "))
            #expect(dropped.dockerfile.runtime?.aptPackages.contains(package) == false)
            let problems = dropped.problems()
            #expect(problems.contains { $0.contains(package) }, "dropping \(package) went unnoticed: \(problems)")
        }
        var dynamic = check
        dynamic.dockerfile = Dockerfile(text.replacingOccurrences(of: " --static-swift-stdlib", with: ""))
        #expect(dynamic.problems().contains { $0.contains("libswiftCore.so") })
    }

    /// The C libraries the module maps link are among what ldd lists: the debug binary links
    /// what the release build links.
    @Test func cLibrariesOfTheModuleMapsAreAllLoaded() async throws {
        let sources = try FileManager.default.contentsOfDirectory(atPath: Self.root + "/Sources").filter { $0.hasPrefix("C") }
        var linked: [String] = []
        for module in sources {
            guard let map = try? String(contentsOfFile: Self.root + "/Sources/\(module)/module.modulemap", encoding: .utf8)
            else { continue }
            for line in map.split(separator: "\n") {
                let words = line.split(separator: " ")
                if words.first == "link", words.count == 2 { linked.append(String(words[1].filter { $0 != "\"" })) }
            }
        }
        #expect(Set(linked).isSuperset(of: ["pq", "microhttpd", "nghttp2", "ssl", "crypto", "curl"]))
        let ldd = try await Self.run("ldd", [OpenPushProcess.executablePath])
        let names = DockerImageCheck.parseLdd(ldd.text).map(\.name)
        for library in linked {
            #expect(names.contains { $0.hasPrefix("lib\(library).so") }, "lib\(library) is not in ldd's list")
        }
    }

    /// The runtime stage copies the binary, `migrations/`, `openapi/` and `web/` from paths that
    /// exist, to where OPENPUSH_RESOURCES_DIR points, and runs `openpush serve` as a user of its own.
    @Test func runtimeStageCopiesWhatExistsAndRunsAsAUser() throws {
        let dockerfile = try Self.dockerfile()
        let runtime = try #require(dockerfile.runtime)
        #expect(runtime.base == "debian:bookworm-slim")
        #expect(dockerfile.stages.first?.base == "swift:6.3-bookworm")
        let fromContext = dockerfile.stages.flatMap(\.copies).filter { $0.from == nil }
        #expect(!fromContext.isEmpty)
        for copy in fromContext {
            for source in copy.sources {
                #expect(FileManager.default.fileExists(atPath: Self.root + "/" + source), "COPY \(source): not in the repository")
            }
        }
        let resources = try #require(runtime.environment["OPENPUSH_RESOURCES_DIR"])
        let destinations = runtime.copies.map(\.destination)
        for folder in ["migrations", "openapi", "web"] {
            #expect(destinations.contains("\(resources)/\(folder)/"), "\(folder)/ is not copied to \(resources)")
            #expect(fromContext.contains { $0.sources.contains("\(folder)/") })
        }
        let binary = try #require(runtime.copies.first { $0.destination == "/usr/local/bin/openpush" })
        let build = try #require(binary.from.flatMap { dockerfile.stage(named: $0) })
        #expect(binary.sources == ["/src/.build/release/openpush"])
        #expect(build.last("WORKDIR") == "/src")
        #expect(build.runs.contains { $0.contains("swift build -c release") })
        let user = try #require(runtime.last("USER")).split(separator: ":").map(String.init)
        let uid = try #require(user.first.flatMap { Int($0) }, "USER is not numeric")
        #expect(uid != 0 && user.last != "0")
        #expect(runtime.runs.contains { $0.contains("useradd") && $0.contains("--uid \(uid) ") })
        #expect(runtime.last("EXPOSE") == "8080")
        #expect(runtime.environment["OPENPUSH_LISTEN"] == "0.0.0.0:8080")
        #expect(Dockerfile.jsonArray(runtime.last("ENTRYPOINT") ?? "") == ["openpush"])
        #expect(Dockerfile.jsonArray(runtime.last("CMD") ?? "") == ["serve"])
    }

    /// The build stage installs every -dev package (and pkg-config) the Makefile installs for a
    /// local build; `.dockerignore` keeps `.build/` out of the context.
    @Test func buildStageInstallsTheMakefilesDevPackages() throws {
        let makefile = try String(contentsOfFile: Self.root + "/Makefile", encoding: .utf8)
        let line = try #require(makefile.split(separator: "\n").first { $0.hasPrefix("DEBIAN_PACKAGES :=") })
        let wanted = line.dropFirst("DEBIAN_PACKAGES :=".count).split(separator: " ").map(String.init)
            .filter { $0.hasSuffix("-dev") || $0 == "pkg-config" }
        #expect(wanted.count >= 6)
        let build = try #require(try Self.dockerfile().stages.first)
        #expect(Set(build.aptPackages).isSuperset(of: wanted), "missing: \(Set(wanted).subtracting(build.aptPackages))")
        let ignored = try String(contentsOfFile: Self.root + "/.dockerignore", encoding: .utf8).split(separator: "\n")
        #expect(ignored.contains { $0 == ".build" || $0 == ".build/" })
    }

    /// The runtime stage's files are all `serve` needs: the folders it copies from the context,
    /// laid out under a scratch root as the image has them, and its ENV (OPENPUSH_RESOURCES_DIR
    /// moved under that root, a free port) let `openpush serve` migrate an empty database, answer
    /// /ready and serve the OpenAPI document, from a working directory outside the repository.
    @Test func serveRunsFromTheImagesLayout() async throws {
        let runtime = try #require(try Self.dockerfile().runtime)
        let scratch = try TemporaryDirectory.make(prefix: "image-layout")
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        for copy in runtime.copies where copy.from == nil {
            for source in copy.sources {
                let target = scratch + copy.destination
                try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent,
                                                        withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: Self.root + "/" + source, toPath: target)
            }
        }
        var environment = runtime.environment
        environment["OPENPUSH_RESOURCES_DIR"] = scratch + (try #require(environment["OPENPUSH_RESOURCES_DIR"]))
        environment["OPENPUSH_LISTEN"] = "127.0.0.1:0"
        let database = try await TestDatabase.create()
        environment["OPENPUSH_DATABASE_URL"] = try await database.createEmptySibling()
        let server = try OpenPushProcess(["serve"], environment: environment, workingDirectory: scratch)
        // It listens only after applying every migration to the empty database: minutes, under load.
        let port = try await server.waitForPort(timeout: .seconds(120))
        #expect(try await Curl.run(["http://127.0.0.1:\(port)/ready"]).status == 200)
        let document = try await Curl.run(["http://127.0.0.1:\(port)/openapi.json"])
        #expect(document.status == 200)
        #expect(document.text.contains("\"paths\""))
        server.signal(SIGINT)
        #expect(try await server.waitForExit() == 0)
    }

    /// Every service of docker-compose.yml that builds this image passes a command the
    /// `ENTRYPOINT ["openpush"]` accepts: `["serve"]`, not `["openpush", "serve"]` (which would
    /// run `openpush openpush serve`, an unknown command).
    @Test func composeCommandsSuitTheEntrypoint() throws {
        let compose = ComposeFile(try String(contentsOfFile: Self.root + "/docker-compose.yml", encoding: .utf8))
        let commands: Set = ["serve", "worker", "migrate", "apps", "apns-sim", "help"]
        for service in compose.services where service.buildsImage {
            let first = service.command?.first ?? "serve"
            #expect(commands.contains(first), "docker-compose.yml \(service.name): command \(service.command ?? []) under ENTRYPOINT [\"openpush\"]")
        }
    }

    // MARK: - The parsing, on fixed text

    @Test func parsesStagesContinuationsAndComments() {
        let dockerfile = Dockerfile("""
            FROM swift:6.3-bookworm AS build
            # a comment
            RUN apt-get update \\
                # a comment inside a continuation
                && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \\
                    libpq-dev pkg-config \\
                && rm -rf /var/lib/apt/lists/*
            FROM debian:bookworm-slim
            RUN apt-get install -y libpq5; apt install libcurl4 | cat
            COPY --from=build --chown=1:1 /src/a /src/b /usr/local/bin/
            COPY ["migrations/", "/usr/share/openpush/migrations/"]
            ENV A=1 \\
                B="two"
            ENV LEGACY value
            USER openpush
            ENTRYPOINT ["openpush"]
            """)
        #expect(dockerfile.stages.map(\.base) == ["swift:6.3-bookworm", "debian:bookworm-slim"])
        #expect(dockerfile.stages.map(\.name) == ["build", nil])
        #expect(dockerfile.stages[0].aptPackages == ["libpq-dev", "pkg-config"])
        #expect(dockerfile.runtime?.aptPackages == ["libpq5", "libcurl4"])
        #expect(dockerfile.runtime?.copies == [
            .init(from: "build", sources: ["/src/a", "/src/b"], destination: "/usr/local/bin/"),
            .init(from: nil, sources: ["migrations/"], destination: "/usr/share/openpush/migrations/"),
        ])
        #expect(dockerfile.runtime?.environment == ["A": "1", "B": "two", "LEGACY": "value"])
        #expect(dockerfile.runtime?.last("USER") == "openpush")
        #expect(dockerfile.runtime?.last("ENTRYPOINT").flatMap(Dockerfile.jsonArray) == ["openpush"])
    }

    @Test func readsComposeServicesThatBuildTheImage() {
        let compose = ComposeFile("""
            # comment
            x-openpush: &openpush
              build: .
              restart: unless-stopped

            services:
              postgres:
                image: postgres:15
                command: ["postgres", "-c", "fsync=off"]
              serve-1:
                <<: *openpush
                command: ["openpush", "serve"]
                environment:
                  command: not this one
              worker:
                build:
                  context: .
                command: ["worker"]
            volumes:
              pgdata:
            """)
        #expect(compose.services == [
            .init(name: "postgres", buildsImage: false, command: ["postgres", "-c", "fsync=off"]),
            .init(name: "serve-1", buildsImage: true, command: ["openpush", "serve"]),
            .init(name: "worker", buildsImage: true, command: ["worker"]),
        ])
    }

    @Test func parsesLddReadelfAndDpkg() {
        let ldd = DockerImageCheck.parseLdd("""
            \tlinux-vdso.so.1 (0x00007ffd)
            \tlibpq.so.5 => /lib/x86_64-linux-gnu/libpq.so.5 (0x00007f)
            \tlibgone.so.1 => not found
            \t/lib64/ld-linux-x86-64.so.2 (0x00007f)
            """)
        #expect(ldd == [.init(name: "libpq.so.5", path: "/lib/x86_64-linux-gnu/libpq.so.5"), .init(name: "libgone.so.1", path: nil),
                        .init(name: "ld-linux-x86-64.so.2", path: "/lib64/ld-linux-x86-64.so.2")])
        #expect(DockerImageCheck.parseNeeded("""
             0x0000000000000001 (NEEDED)             Shared library: [libpq.so.5]
             0x000000000000000c (INIT)               0x1000
            """) == ["libpq.so.5"])
        #expect(DockerImageCheck.parseDpkgSearch("""
            libpq5:amd64: /usr/lib/x86_64-linux-gnu/libpq.so.5
            dpkg-query: no path found matching pattern /lib/x86_64-linux-gnu/libpq.so.5
            libc6:amd64, libc6-i386: /lib64/ld-linux-x86-64.so.2
            """) == ["/usr/lib/x86_64-linux-gnu/libpq.so.5": ["libpq5"], "/lib64/ld-linux-x86-64.so.2": ["libc6", "libc6-i386"]])
        let dependencies = DockerImageCheck.parseDependencies(
            "libpq5\tlibc6 (>= 2.34), libgssapi-krb5-2 (>= 1.17), libldap-2.5-0 (>= 2.5.4)\t\n"
                + "libldap-2.5-0\tlibsasl2-2 (>= 2.1.28+dfsg), debconf (>= 0.5) | debconf-2.0\tlibc6:any\n")
        #expect(dependencies["libpq5"] == ["libc6", "libgssapi-krb5-2", "libldap-2.5-0"])
        #expect(dependencies["libldap-2.5-0"] == ["libsasl2-2", "debconf", "libc6"])
        #expect(DockerImageCheck.closure(of: ["libpq5"], dependencies: dependencies)
            == ["libpq5", "libc6", "libgssapi-krb5-2", "libldap-2.5-0", "libsasl2-2", "debconf"])
    }

    /// A library the binary names needs its package by name; one loaded in turn may come from a
    /// dependency of an installed package; the Swift runtime needs static linking or a copy.
    @Test func decidesDirectTransitiveAndSwiftLibraries() {
        let dockerfile = Dockerfile("""
            FROM swift:6.3-bookworm AS build
            RUN swift build -c release
            FROM debian:bookworm-slim
            RUN apt-get install -y libpq5
            """)
        var check = DockerImageCheck(
            dockerfile: dockerfile, needed: ["libpq.so.5", "libcurl.so.4", "libswiftCore.so"],
            loaded: [.init(name: "libpq.so.5", path: "/usr/lib/libpq.so.5"), .init(name: "libldap-2.5.so.0", path: "/usr/lib/libldap-2.5.so.0"),
                     .init(name: "libcurl.so.4", path: "/usr/lib/libcurl.so.4"),
                     .init(name: "libswiftCore.so", path: "/opt/swift/usr/lib/swift/linux/libswiftCore.so")],
            owners: ["/usr/lib/libpq.so.5": ["libpq5"], "/usr/lib/libldap-2.5.so.0": ["libldap-2.5-0"], "/usr/lib/libcurl.so.4": ["libcurl4"]],
            dependencies: ["libpq5": ["libldap-2.5-0"], "libldap-2.5-0": ["libcurl4"]])
        let problems = check.problems()
        #expect(problems.count == 2)
        #expect(problems.contains { $0.contains("libcurl4") && $0.contains("names it") })
        #expect(problems.contains { $0.contains("libswiftCore.so") })
        check.dockerfile = Dockerfile("""
            FROM swift:6.3-bookworm AS build
            FROM debian:bookworm-slim
            RUN apt-get install -y libpq5 libcurl4
            COPY --from=build /usr/lib/swift/linux/ /usr/lib/swift/linux/
            """)
        #expect(check.problems() == [])
    }
}
