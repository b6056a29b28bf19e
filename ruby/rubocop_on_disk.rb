# frozen_string_literal: true

# Files on disk as RuboCop's CLI sees them, while the worker corrects them through --stdin (so that RuboCop never
# writes: the server writes the corrected source inside its transaction). One cop looks at the file itself rather
# than its source: Lint/ScriptPermission (a script with a shebang must be executable), which skips any --stdin run.
# While a file on disk is corrected, the cop runs as on that file; its correction (`chmod +x`, which `rubocop -a`
# applies) is recorded instead, for the server to apply, and the file counts as executable from then on.
module OnDisk
  class << self
    # The absolute path of the file on disk being corrected through stdin, or nil (inline code, inspections).
    attr_reader :path

    # The correction made the script executable (pending: the server applies it).
    attr_accessor :made_executable

    def correcting(path)
      @path = File.expand_path(path)
      @made_executable = false
      yield
    ensure
      @path = nil
    end

    def file?(name)
      !@path.nil? && File.expand_path(name) == @path
    end

    def executable?
      @made_executable || File.stat(@path).executable?
    end
  end

  # Lint/ScriptPermission as it runs on a file it reads itself, with its chmod recorded.
  module ScriptPermission
    def on_new_investigation
      return super unless OnDisk.file?(processed_source.file_path)
      return if RuboCop::Platform.windows?
      return unless processed_source.start_with?(self.class::SHEBANG)
      return if OnDisk.executable?

      comment = processed_source.comments[0]
      add_offense(comment, message: format_message_from(processed_source)) do
        OnDisk.made_executable = true if autocorrect_requested?
      end
    end
  end
end

def install_on_disk_hooks
  RuboCop::Cop::Lint::ScriptPermission.prepend(OnDisk::ScriptPermission)
end
