# frozen_string_literal: true

# The warm RuboCop worker of mcp-code-quality: a long-lived Ruby process per project root that loads RuboCop once
# and answers requests from the server's worker pool over Node's IPC channel (one JSON object per line on the
# file descriptor in NODE_CHANNEL_FD). Each request runs RuboCop's own CLI in-process: a file on disk is inspected
# as the CLI inspects it (its path), inline code and every correction go through "stdin" (--stdin), so results are
# exactly `rubocop --format json` and nothing is ever written: corrected source (and a script to make executable)
# comes back to the server, which writes it inside its transaction.
require_relative 'iseq_cache'
require 'json'
require 'stringio'
require 'tmpdir'
require_relative 'rubocop_contextual'
require_relative 'rubocop_explain'
require_relative 'rubocop_on_disk'
require_relative 'rubocop_plugins'

root = ARGV.fetch(0)
Dir.chdir(root)
# The server's folder (never the project's) where a batch keeps RuboCop's own cache while it runs: RuboCop
# inspects in parallel only with its cache on. Each batch gets a new one, removed after it, so no result of
# RuboCop's cache ever answers for a file, a configuration or a custom cop changed since.
PARALLEL_ROOT = ARGV[2] && File.directory?(ARGV[2]) ? ARGV[2] : nil

channel = IO.for_fd(Integer(ENV.fetch('NODE_CHANNEL_FD')), 'r+', autoclose: false)
channel.sync = true

def reply(channel, message)
  channel.write("#{JSON.generate(message)}\n")
end

begin
  require 'rubocop'
  install_contextual_hooks
  install_on_disk_hooks
rescue LoadError => e
  # Answer every request with the reason, so the server reports it instead of a bare exit.
  load_error = e.message
end
# What loading compiled is kept before the first answer (a one-shot check may end the worker right after it).
IseqCache.save

# One RuboCop CLI per --config value, kept for the worker's life: its ConfigStore caches each folder's resolved
# configuration, so only the first request for a folder loads .rubocop.yml and what it inherits. The pool retires
# the worker when one of those files (or Gemfile.lock) changes, so the cache is never stale.
CLIS = {}

def cli_for(config)
  CLIS[config] ||= RuboCop::CLI.new
end

# Runs `rubocop --format json [options] --stdin path` in this process: $stdin is the source, $stdout is captured.
# `contextual: true` lets the cops that hold their corrections back while code is edited correct too.
def run_cli(params)
  argv = ['--format', 'json', '--cache', 'false']
  case params['autocorrect']
  when 'safe' then argv << '--autocorrect'
  when 'all' then argv << '--autocorrect-all'
  end
  argv.push('--only', params['only'].join(',')) if params['only']&.any?
  argv.push('--except', params['except'].join(',')) if params['except']&.any?
  argv.push('--config', params['config']) if params['config']
  # A file on disk is inspected as the CLI does (RuboCop reads it, cops see the file); anything else on stdin.
  on_disk = params['on_disk'] && !params['autocorrect'] && !OnDisk.path
  argv.push('--force-exclusion', *(on_disk ? [] : ['--stdin']), params.fetch('path'))
  out = StringIO.new
  err = StringIO.new
  saved = [$stdin, $stdout, $stderr]
  $stdin = StringIO.new(on_disk ? '' : params.fetch('source'))
  $stdout = out
  $stderr = err
  cli = cli_for(params['config'])
  RunRecorder.reset
  status = Contextual.editing(!params['contextual']) do
    cli.run(argv)
  ensure
    $stdin, $stdout, $stderr = saved
  end
  # With --stdin and autocorrection, RuboCop keeps the corrected source in options[:stdin] (and prints it only
  # for non-JSON formats). A correction loop leaves the source as it was.
  corrected = params['autocorrect'] && !RunRecorder.loop ? cli.options[:stdin] : nil
  { 'status' => status, 'report' => out.string, 'corrected' => corrected, 'stderr' => err.string,
    'errors' => RunRecorder.errors, 'warnings' => RunRecorder.warnings, 'loop' => RunRecorder.loop }
end

# Which inspected files failed (an offense at or above the fail level), per file, while a batch runs.
module BatchRecorder
  class << self
    attr_accessor :failed
  end

  # Prepended to RuboCop::Runner: process_file answers one file's offenses.
  module Hook
    private

    def process_file(file)
      offenses = super
      BatchRecorder.failed[File.expand_path(file)] = offenses.any? { |o| considered_failure?(o) } if BatchRecorder.failed
      offenses
    end
  end
end
RuboCop::Runner.prepend(BatchRecorder::Hook) unless load_error

# Files on disk that are only inspected (no correction, no corrections pass) run as the CLI runs them: all in one
# `rubocop --format json PATH...`, one Runner for the lot, instead of one CLI run per file (each with its own
# set-up: about 15 ms a file). The report is split per file, each with the exit status its own run would have.
# Anything unusual (exit 2, a crash, a warning, a loop) runs the files one by one instead, where each is told apart.
def batchable?(params, files)
  files.size > 1 && !params['autocorrect'] && !params['corrections'] && !OnDisk.path &&
    files.all? { |f| f['on_disk'] }
end

def inspect_batch(params, files)
  return inspect_batch_with(params, files, ['--cache', 'false']) unless PARALLEL_ROOT

  Dir.mktmpdir('batch-', PARALLEL_ROOT) do |cache_root|
    inspect_batch_with(params, files, ['--cache', 'true', '--cache-root', cache_root, '--parallel'])
  end
end

def inspect_batch_with(params, files, cache_args)
  argv = ['--format', 'json', *cache_args]
  argv.push('--only', params['only'].join(',')) if params['only']&.any?
  argv.push('--except', params['except'].join(',')) if params['except']&.any?
  argv.push('--config', params['config']) if params['config']
  argv.push('--force-exclusion', *files.map { |f| f.fetch('path') })
  out = StringIO.new
  err = StringIO.new
  saved = [$stdin, $stdout, $stderr]
  $stdin = StringIO.new('')
  $stdout = out
  $stderr = err
  RunRecorder.reset
  BatchRecorder.failed = {}
  status = Contextual.editing(!params['contextual']) do
    cli_for(params['config']).run(argv)
  ensure
    $stdin, $stdout, $stderr = saved
  end
  failed = BatchRecorder.failed
  BatchRecorder.failed = nil
  return nil if status == 2 || !err.string.empty? || RunRecorder.errors.any? || RunRecorder.warnings.any? || RunRecorder.loop

  report = JSON.parse(out.string)
  by_path = report.fetch('files').to_h { |entry| [File.expand_path(entry.fetch('path')), entry] }
  files.map do |f|
    entry = by_path[File.expand_path(f.fetch('path'))]
    one = {
      'metadata' => report['metadata'],
      'files' => entry ? [entry] : [],
      'summary' => { 'offense_count' => entry ? entry['offenses'].size : 0,
                     'target_file_count' => entry ? 1 : 0, 'inspected_file_count' => entry ? 1 : 0 }
    }
    single = { 'status' => failed[File.expand_path(f.fetch('path'))] ? 1 : 0, 'report' => JSON.generate(one),
               'corrected' => nil, 'stderr' => '', 'errors' => [], 'warnings' => [], 'loop' => nil }
    single['contextual_cops'] = contextual_cops(params.merge(f), single['report'])
    single
  end
end

# A correcting run's report locates offenses in the source of the pass that found them; what an agent needs is
# the offenses the corrected source still has, with their edits. So after a correction (or a loop, which leaves
# the source unchanged), the final source is inspected once more; the correcting run's crashes are kept.
def fix_file(params)
  return fix_source(params) unless params['on_disk']

  OnDisk.correcting(params.fetch('path')) do
    fix_source(params).merge('make_executable' => OnDisk.made_executable)
  end
end

def fix_source(params)
  fixed = run_cli(params)
  final = fixed['corrected'] || params.fetch('source')
  inspect_params = params.merge('source' => final, 'autocorrect' => nil)
  result = if fixed['loop'] || final != params.fetch('source') || OnDisk.made_executable
             run_cli(inspect_params)
           else
             fixed.merge('errors' => [], 'warnings' => [])
           end
  result.merge(
    'corrected' => fixed['corrected'],
    'errors' => (fixed['errors'] + result['errors'] + [fixed['loop']].compact).uniq,
    'warnings' => (fixed['warnings'] + result['warnings']).uniq,
    'loop' => fixed['loop'],
    'corrections' => params['corrections'] ? corrections(inspect_params) : nil
  )
end

# Each correctable offense's own edits: one investigation of the source with every correction computed (as -A
# does) but nothing applied or written (the source is "stdin"), read from each offense's corrector. `safe` is the
# cop's Safe and SafeAutoCorrect settings; `contextual` says the cop holds it back while code is edited.
def corrections(params)
  options = { autocorrect: true, stdin: params.fetch('source').dup }
  options[:only] = params['only'] if params['only']&.any?
  options[:except] = params['except'] if params['except']&.any?
  store = cli_for(params['config']).config_store
  runner = RuboCop::Runner.new(options, store)
  path = params.fetch('path')
  config = store.for_file(path)
  # Built as Runner#get_processed_source builds it (its config and registry are what cops read).
  source = runner.send(:get_processed_source, path)
  return [] if source.parser_error

  # Every cop in one pass (Team#investigate would run the non-correcting ones, contextual ones included while
  # editing, only once no correction is left); their corrections are built, never applied.
  team = runner.send(:mobilize_team, source)
  cops = team.send(:roundup_relevant_cops, source.file_path)
  report = Contextual.editing(true) { team.send(:investigate_partial, cops, source) }
  report.offenses.filter_map do |offense|
    next unless offense.corrector

    edits = offense.corrector.as_replacements.map do |range, text|
      { line: range.line, column: range.column + 1, end_line: range.last_line, end_column: range.last_column + 1,
        text: text }
    end
    next if edits.empty?

    cop = config.for_cop(offense.cop_name)
    safe = cop.fetch('Safe', true) != false && cop.fetch('SafeAutoCorrect', true) != false
    { cop: offense.cop_name, line: offense.line, column: offense.column + 1, safe: safe, edits: edits,
      contextual: Contextual.contextual?(offense.cop_name, config) }
  end
rescue StandardError => e
  [{ error: "#{e.class}: #{e.message}" }]
end

# Without the corrections pass, the cops among a report's offenses that hold their corrections back while code is
# edited (so the server can say those offenses are not correctable now, as the corrections pass would).
def contextual_cops(params, report)
  cops = JSON.parse(report).fetch('files', []).flat_map { |f| f.fetch('offenses', []).map { |o| o['cop_name'] } }.uniq
  return [] if cops.empty?

  config = cli_for(params['config']).config_store.for_file(params.fetch('path'))
  cops.select { |cop| Contextual.contextual?(cop, config) }
rescue StandardError
  []
end

# The files RuboCop itself would inspect under the given paths (its TargetFinder: AllCops Include/Exclude,
# recognized Ruby file types), absolute.
def targets(params)
  store = cli_for(params['config']).config_store
  store.options_config = params['config'] if params['config']
  finder = RuboCop::TargetFinder.new(store, force_exclusion: true)
  finder.find(params.fetch('paths'), :only_recognized_file_types).map { |f| File.expand_path(f) }
end

while (line = channel.gets)
  begin
    request = JSON.parse(line)
  rescue JSON::ParserError
    next
  end
  id = request['id']
  next unless id

  begin
    raise "RuboCop could not be loaded: #{load_error}" if load_error

    result =
      case request['method']
      when 'version' then { 'version' => RuboCop::Version::STRING, 'ruby' => RUBY_VERSION }
      when 'run'
        files = request['params'].fetch('files')
        batch = batchable?(request['params'], files) ? inspect_batch(request['params'], files) : nil
        batch || files.map do |f|
          params = request['params'].merge(f)
          next fix_file(params) if params['autocorrect'] && params['leftovers']

          result = run_cli(params)
          if params['corrections']
            result['corrections'] = corrections(params)
          else
            result['contextual_cops'] = contextual_cops(params, result['report'])
          end
          result
        end
      when 'explain' then explain_cops(cli_for(request['params']['config']).config_store, request['params'])
      when 'targets' then targets(request['params'])
      else raise ArgumentError, "unknown method #{request['method']}"
      end
    reply(channel, { id: id, ok: true, result: result })
    # A project's custom cops, loaded by its first run: kept for the next worker.
    IseqCache.save
  rescue StandardError, ScriptError => e
    config = request.dig('params', 'config') || File.join(Dir.pwd, '.rubocop.yml')
    plugins = Plugins.explain(e, config) if load_error.nil?
    message = plugins ? plugins.message : "#{e.class}: #{e.message}"
    reply(channel, { id: id, ok: false, error: { message: message, kind: 'fatal' } })
  end
end
