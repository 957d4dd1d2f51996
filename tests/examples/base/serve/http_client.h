// tests/examples/base/serve/http_client.h — a tiny blocking HTTP/1.1 client for the server's
// tests: one request per connection to 127.0.0.1 (Connection: close), the whole answer read.
// libmicrohttpd is a server library only; this is the least a test needs to call it.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace atencion::test_http {

struct Answer {
  int status = 0;
  std::string headers;  // the status line and the headers, as sent
  std::string body;
};

// Sends `raw` as it is and reads until the server closes the connection (at most 30 s).
inline std::string send_and_receive(uint16_t port, const std::string& raw) {
  const int socket_fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (socket_fd < 0) throw std::runtime_error("socket() failed");
  timeval timeout{30, 0};
  ::setsockopt(socket_fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(socket_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(socket_fd);
    throw std::runtime_error("cannot connect to 127.0.0.1:" + std::to_string(port));
  }
  for (std::size_t sent = 0; sent < raw.size();) {
    const ssize_t n = ::send(socket_fd, raw.data() + sent, raw.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;  // the server may answer (413) and close before the body is sent
    sent += static_cast<std::size_t>(n);
  }
  std::string received;
  char buffer[65536];
  for (ssize_t n; (n = ::recv(socket_fd, buffer, sizeof buffer, 0)) > 0;)
    received.append(buffer, static_cast<std::size_t>(n));
  ::close(socket_fd);
  return received;
}

inline Answer parse(const std::string& received) {
  Answer answer;
  const std::size_t end = received.find("\r\n\r\n");
  if (received.rfind("HTTP/1.1 ", 0) != 0 || end == std::string::npos)
    throw std::runtime_error("not an HTTP answer: " + received.substr(0, 80));
  answer.status = std::stoi(received.substr(9, 3));
  answer.headers = received.substr(0, end);
  answer.body = received.substr(end + 4);
  return answer;
}

inline Answer call(uint16_t port, const std::string& method, const std::string& path,
                   const std::string& body = "") {
  std::string raw = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n";
  if (method == "POST" || !body.empty())
    raw += "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\n";
  return parse(send_and_receive(port, raw + "\r\n" + body));
}

}  // namespace atencion::test_http
