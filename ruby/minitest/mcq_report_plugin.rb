# frozen_string_literal: true

# A Minitest plugin shipped with mcp-code-quality: when MCQ_MINITEST_REPORT names a file, every finished test
# is written there as one JSON line (class, name, file, line, result, each failure's message and location),
# beside Minitest's own output. Minitest finds it through its plugin search (minitest/*_plugin.rb on the load
# path, which the server adds); without the variable it does nothing.
require "json"

module Minitest
  # Writes one JSON line per result to the report file.
  class McqReporter < AbstractReporter
    def initialize(path)
      super()
      @io = File.open(path, "w")
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
    path = ENV["MCQ_MINITEST_REPORT"]
    reporter << McqReporter.new(path) if path && !path.empty?
  end
end
