# frozen_string_literal: true

# Compiled Ruby kept between worker starts, as bootsnap's compile cache does: each file the worker requires
# (RuboCop, its gems, the project's custom cops) is compiled once to instruction sequences, kept in the server's
# private folder of the project (ARGV[1], never in the project), and loaded from there by the next worker while
# the file is the same one (path, inode, size, modification and change times). A cold worker loads RuboCop in
# ~2/3 of the time (issue 42: rake's fresh check after an edit waited ~660 ms for `require 'rubocop'`).
# Anything unreadable, stale or of another Ruby is compiled again.
require 'digest/sha2'

module IseqCache
  class << self
    attr_accessor :dir
  end

  def load_iseq(path)
    dir = IseqCache.dir
    st = File.stat(path)
    key = [RUBY_VERSION, RUBY_PLATFORM, RUBY_PATCHLEVEL, path, st.ino, st.size,
           st.mtime.to_r, st.ctime.to_r].join("\0")
    file = File.join(dir, Digest::SHA256.hexdigest(key))
    begin
      return RubyVM::InstructionSequence.load_from_binary(File.binread(file))
    rescue StandardError
      # None yet, or not loadable (another Ruby's, cut short): compiled below.
    end
    iseq = RubyVM::InstructionSequence.compile_file(path)
    begin
      tmp = "#{file}.#{Process.pid}.tmp"
      File.binwrite(tmp, iseq.to_binary)
      File.rename(tmp, file)
    rescue StandardError
      # Not writable: the next worker compiles it again.
    end
    iseq
  rescue SyntaxError, SystemCallError
    # Ruby's own loader reports the file's syntax error, or that it is gone.
    nil
  end
end

if (dir = ARGV[1]) && File.directory?(dir)
  IseqCache.dir = dir
  RubyVM::InstructionSequence.singleton_class.prepend(IseqCache)
end
