import Foundation

/// A real static site for recording tests: Jinja2's HTML documentation (Debian's python-jinja2-doc:
/// HTML, CSS with @import, jQuery and other scripts, PNG images) served by nginx over HTTPS (h1, h2)
/// on loopback under two host names: pages from `docs.test`, their `_static/` files from
/// `static.test` (nginx rewrites the pages' links), so a recording has two origins. nginx runs in
/// the foreground as this process's child and `stop()` ends it by its PID.
public final class LocalDocSite {
    public static let root = "/usr/share/doc/python-jinja2-doc/html"
    public static let hosts = ["docs.test", "static.test"]

    public let directory: String
    public let port: Int
    private let nginx: Process

    /// Starts the site, or throws (`missingPrerequisite` when nginx or the documentation is missing).
    /// `gzip`: nginx compresses HTML, CSS and JavaScript (its defaults otherwise: level 1).
    public init(gzip: Bool = false) throws {
        guard let binary = ["/usr/sbin/nginx", "/usr/bin/nginx"].first(where: {
            FileManager.default.isExecutableFile(atPath: $0)
        }) else { try missingPrerequisite("nginx is not installed (scripts/bootstrap.sh --test installs it)") }
        guard FileManager.default.fileExists(atPath: Self.root + "/index.html") else {
            try missingPrerequisite("\(Self.root) is missing (scripts/bootstrap.sh --test installs python-jinja2-doc)")
        }
        let dir = NSTemporaryDirectory() + "netbench-docsite-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        directory = dir
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
            dir + "/key.pem", "-out", dir + "/cert.pem", "-days", "2", "-subj", "/CN=docs.test",
            "-addext", "subjectAltName=" + Self.hosts.map { "DNS:\($0)" }.joined(separator: ","),
            // A server's certificate, not a CA's (`req -x509` makes CA:TRUE): Firefox refuses a CA certificate
            // as a server's (MOZILLA_PKIX_ERROR_CA_CERT_USED_AS_END_ENTITY).
            "-addext", "basicConstraints=critical,CA:FALSE",
        ]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        var chosen = 0
        var started: Process?
        for _ in 0..<5 where started == nil {
            let port = 20_000 + Int.random(in: 0..<20_000)
            try Self.config(dir: dir, port: port, gzip: gzip)
                .write(toFile: dir + "/nginx.conf", atomically: true, encoding: .utf8)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: binary)
            p.arguments = ["-c", dir + "/nginx.conf", "-p", dir, "-g", "daemon off;"]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            if Self.waitForPort(port, while: p) {
                started = p
                chosen = port
            } else if p.isRunning {
                p.terminate()
                p.waitUntilExit()
            }
        }
        guard let started else {
            let log = (try? String(contentsOfFile: dir + "/error.log", encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(atPath: dir)
            throw NSError(domain: "LocalDocSite", code: 1, userInfo: [NSLocalizedDescriptionKey: "nginx: " + log])
        }
        nginx = started
        port = chosen
    }

    deinit { stop() }

    public func stop() {
        if nginx.isRunning {
            nginx.terminate()
            nginx.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `https://docs.test:PORT/<page>`.
    public func url(_ page: String) -> String { "https://docs.test:\(port)/\(page)" }

    /// `--resolve` values (and Chromium host resolver targets) for both names.
    public var resolve: [String] { Self.hosts.map { "\($0)=127.0.0.1" } }

    static func config(dir: String, port: Int, gzip: Bool = false) -> String {
        """
        worker_processes 1;
        pid \(dir)/nginx.pid;
        error_log \(dir)/error.log;
        events { worker_connections 1024; }
        http {
          include /etc/nginx/mime.types;
          access_log off;
          \(gzip ? "gzip on; gzip_types text/css application/javascript text/javascript;" : "gzip off;")
          client_body_temp_path \(dir); proxy_temp_path \(dir); fastcgi_temp_path \(dir);
          uwsgi_temp_path \(dir); scgi_temp_path \(dir);
          server {
            listen 127.0.0.1:\(port) ssl http2;
            server_name docs.test static.test;
            ssl_certificate \(dir)/cert.pem; ssl_certificate_key \(dir)/key.pem;
            root \(root);
            sub_filter_once off;
            sub_filter 'src="_static/' 'src="https://static.test:\(port)/_static/';
            sub_filter 'href="_static/' 'href="https://static.test:\(port)/_static/';
          }
        }
        """
    }

    static func waitForPort(_ port: Int, while p: Process) -> Bool {
        for _ in 0..<100 where p.isRunning {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = in_port_t(UInt16(port).bigEndian)
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            let ok = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                }
            }
            close(fd)
            if ok { return true }
            usleep(50_000)
        }
        return false
    }
}
