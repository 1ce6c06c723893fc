# Peer servers for the benchmark scripts (source it after setting $work, a scratch directory, and
# pids=(), the PIDs the script's cleanup kills). The start_* functions run in the calling shell, leave
# the port in $port and the server's PID in $server_pid, and return once it listens.
# shellcheck shell=bash

# peers_certificate: a P-256 certificate for localhost and 127.0.0.1 in $work/cert.pem, $work/key.pem.
peers_certificate() {
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=localhost \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# wait_listening PORT NAME: until a TCP connection to PORT succeeds (10 s), else exit 2.
wait_listening() {
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return
    sleep 0.1
  done
  echo "$(basename "$0" .sh): nothing listens on port $1 ($2)" >&2; exit 2
}

# start_nghttpd: nghttpd over h2 serving $work/htdocs.
start_nghttpd() {
  port=$(free_port)
  nghttpd --htdocs="$work/htdocs" "$port" "$work/key.pem" "$work/cert.pem" > "$work/nghttpd.out" 2>&1 &
  server_pid=$!; pids+=("$server_pid")
  wait_listening "$port" nghttpd
}

# peers_nginx_conf LISTEN ROOT: $work/nginx/nginx.conf for one nginx worker in the foreground, serving
# ROOT over TLS with $work/cert.pem on LISTEN (nginx's listen parameters, e.g. "127.0.0.1:8443 ssl http2").
peers_nginx_conf() {
  mkdir -p "$work/nginx"
  cat > "$work/nginx/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $work/nginx; proxy_temp_path $work/nginx; fastcgi_temp_path $work/nginx;
  uwsgi_temp_path $work/nginx; scgi_temp_path $work/nginx;
  keepalive_requests 1000000;
  server {
    listen $1;
    ssl_certificate $work/cert.pem; ssl_certificate_key $work/key.pem;
    root $2;
  }
}
CONF
}

# start_nginx: nginx over HTTPS/1.1, one worker, serving $work/htdocs.
start_nginx() {
  port=$(free_port)
  peers_nginx_conf "127.0.0.1:$port ssl" "$work/htdocs"
  nginx -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" > "$work/nginx.out" 2>&1 &
  server_pid=$!; pids+=("$server_pid")
  wait_listening "$port" nginx
}
