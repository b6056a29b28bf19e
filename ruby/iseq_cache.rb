# frozen_string_literal: true

# Compiled Ruby kept between worker starts, as bootsnap's compile cache does: each file the worker requires
# (RuboCop, its gems, the project's custom cops) is compiled once to instruction sequences, kept in the server's
# private folder of the project (ARGV[1], never in the project), and loaded from there by the next worker while
# the file is the same one (path, inode, size, modification and change times). A cold worker loads RuboCop in
# ~2/3 of the time (issue 42: rake's fresh check after an edit waited ~660 ms for `require 'rubocop'`).
# Anything unreadable, stale or of another Ruby is compiled again.
#
# The sequences are kept together in one pack file (a line of JSON naming each entry's key, place and file, then
# the binaries), written whole to a temporary file and renamed into place: a file per sequence cost a first worker
# ~1,100 files created and renamed, ~0.4 s of system time, more than the cache saves a later one.
require 'digest/sha2'
require 'json'

module IseqCache
  PACK = 'pack'

  class << self
    attr_reader :dir

    # Reads the pack of `dir`, if any; one that cannot be read is as none.
    def open(dir)
      @dir = dir
      @pending = {}
      @index = {}
      @blob = nil
      data = File.binread(File.join(dir, PACK))
      newline = data.index("\n")
      index = JSON.parse(data.byteslice(0, newline).force_encoding(Encoding::UTF_8))
      @index = index if index.is_a?(Hash)
      @blob = data.byteslice(newline + 1, data.bytesize)
    rescue StandardError
      @index = {}
      @blob = nil
    end

    def key_of(path)
      st = File.stat(path)
      Digest::SHA256.hexdigest([RUBY_VERSION, RUBY_PLATFORM, RUBY_PATCHLEVEL, path, st.ino, st.size,
                                st.mtime.to_r, st.ctime.to_r].join("\0"))
    end

    # The sequence kept for `key`, if any.
    def kept(key)
      at = @index[key]
      return nil unless at && @blob

      RubyVM::InstructionSequence.load_from_binary(@blob.byteslice(at[0], at[1]))
    rescue StandardError
      # Another Ruby's, cut short: compiled again.
      nil
    end

    def remember(key, path, iseq)
      @pending[key] = [path, iseq.to_binary]
    rescue StandardError
      # Not serializable: compiled again next time.
    end

    # Writes the pack again when something was compiled since it was read: its entries whose file is still the
    # same one, and the new ones. Never fails the worker: the next one compiles what is missing.
    def save
      return if @dir.nil? || @pending.empty?

      entries = still_valid.merge(@pending)
      index = {}
      offset = 0
      entries.each do |key, (path, binary)|
        index[key] = [offset, binary.bytesize, path]
        offset += binary.bytesize
      end
      write_pack(JSON.generate(index), entries.values.map(&:last))
      @index = index
      @blob = entries.values.map(&:last).join.b
      @pending = {}
    rescue StandardError
      nil
    end

    private

    # The pack's entries (key => [path, binary]) whose file is still the one they were compiled from.
    def still_valid
      @index.each_with_object({}) do |(key, (at, length, path)), kept|
        next if @pending.key?(key) || !path.is_a?(String) || current_key(path) != key

        kept[key] = [path, @blob.byteslice(at, length)]
      end
    end

    def current_key(path)
      key_of(path)
    rescue SystemCallError
      nil
    end

    # The pack whole to a new file, renamed into place; the first one here replaces a file per sequence (this
    # cache's earlier layout), if any is left.
    def write_pack(index_line, binaries)
      file = File.join(@dir, PACK)
      tmp = "#{file}.#{Process.pid}.tmp"
      begin
        File.open(tmp, File::WRONLY | File::CREAT | File::EXCL, 0o600) do |f|
          f.binmode
          f.write(index_line, "\n", *binaries)
        end
        File.rename(tmp, file)
      ensure
        File.delete(tmp) if File.exist?(tmp)
      end
      Dir.each_child(@dir) { |n| File.delete(File.join(@dir, n)) if n.match?(/\A\h{64}\z/) } unless @blob
    end
  end

  def load_iseq(path)
    key = IseqCache.key_of(path)
    kept = IseqCache.kept(key)
    return kept if kept

    iseq = RubyVM::InstructionSequence.compile_file(path)
    IseqCache.remember(key, path, iseq)
    iseq
  rescue SyntaxError, SystemCallError
    # Ruby's own loader reports the file's syntax error, or that it is gone.
    nil
  end
end

if (dir = ARGV[1]) && File.directory?(dir)
  IseqCache.open(dir)
  RubyVM::InstructionSequence.singleton_class.prepend(IseqCache)
end
