# A real HTTP/1.1 server on 127.0.0.1 for the client's tests: each request is recorded, then answered
# by the block ([status, headers, body], or :hang to never answer).
require 'socket'

class LoopbackServer
  Request = Struct.new(:method, :path, :query, :headers, :body, keyword_init: true) do
    def header(name)
      headers[name.downcase]
    end
  end

  attr_reader :requests, :url

  def initialize(&handler)
    @handler = handler
    @server = TCPServer.new('127.0.0.1', 0)
    @url = "http://127.0.0.1:#{@server.addr[1]}"
    @requests = []
    @lock = Mutex.new
    @threads = []
    @acceptor = Thread.new do
      loop do
        socket = @server.accept
        @lock.synchronize { @threads << Thread.new(socket) { |s| serve(s) } }
      end
    rescue IOError, Errno::EBADF
      nil
    end
  end

  def close
    @server.close
    @acceptor.join(1)
    @lock.synchronize { @threads.each(&:kill) }
  end

  # A port nothing listens on.
  def self.refused_url
    server = TCPServer.new('127.0.0.1', 0)
    port = server.addr[1]
    server.close
    "http://127.0.0.1:#{port}"
  end

  private

  def serve(socket)
    request = read_request(socket)
    return unless request

    index = @lock.synchronize { (@requests << request).size - 1 }
    answer = @handler.call(request, index)
    if answer == :hang
      sleep 30
      return
    end
    status, headers, body = answer
    body = body.to_s
    head = ["HTTP/1.1 #{status} Status", "Content-Length: #{body.bytesize}", 'Connection: close']
    head += (headers || {}).map { |k, v| "#{k}: #{v}" }
    socket.write("#{head.join("\r\n")}\r\n\r\n#{body}")
  rescue IOError, SystemCallError
    nil
  ensure
    socket.close unless socket.closed?
  end

  def read_request(socket)
    line = socket.gets("\r\n") or return nil
    method, target = line.split(' ')
    headers = {}
    while (header = socket.gets("\r\n")) && header != "\r\n"
      name, value = header.chomp("\r\n").split(':', 2)
      headers[name.strip.downcase] = value.to_s.strip
    end
    socket.write("HTTP/1.1 100 Continue\r\n\r\n") if headers['expect'].to_s.casecmp?('100-continue')
    body = headers['content-length'] ? socket.read(headers['content-length'].to_i) : ''
    path, query = target.split('?', 2)
    Request.new(method: method, path: path, query: URI.decode_www_form(query.to_s).to_h, headers: headers, body: body)
  end
end
