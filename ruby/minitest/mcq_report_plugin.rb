# frozen_string_literal: true

# A Minitest plugin shipped with mcp-code-quality: when MCQ_MINITEST_REPORT names a file, every finished test
# is written there as one JSON line (class, name, file, line, result, each failure's message and location),
# beside Minitest's own output. Minitest finds it through its plugin search (minitest/*_plugin.rb on the load
# path, which the server adds); without the variable it does nothing.
#
# Only the test processes the run starts report: the first Minitest process to load the plugin takes the
# variable out of its environment, so Minitest runs its tests start in subprocesses (fixtures a suite expects
# to fail, as rake's own tests have) do not write into the report. Sibling test processes (a `rake test`
# whose task runs several) each append their lines.
require "json"

module Minitest
  # Writes one JSON line per result to the report file.
  class McqReporter < AbstractReporter
    def initialize(path)
      super()
      @io = File.open(path, "a")
      @io.sync = true
    end

    def record(result)
      file, line = result.source_location
      @io.puts JSON.generate(
        class: result.klass,
        name: result.name,
        file: file && File.expand_path(file),
        line: line,
        assertions: result.assertions,
        skipped: result.skipped? ? true : false,
        failures: result.failures.reject { |f| f.is_a?(Minitest::Skip) }.map do |f|
          { label: f.result_label, message: f.message, location: f.location, error: f.is_a?(UnexpectedError) }
        end
      )
    end

    def report
      @io.close
    end
  end

  def self.plugin_mcq_report_init(_options)
    path = ENV.delete("MCQ_MINITEST_REPORT")
    reporter << McqReporter.new(path) if path && !path.empty?
  end
end
