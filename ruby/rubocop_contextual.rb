# frozen_string_literal: true

# Corrections held back while code is being edited, for RuboCop versions before `AutoCorrect: contextual` (1.61)
# and for every version alike: a cop is contextual when its resolved configuration says `AutoCorrect:
# contextual`, or when it is one of the cops RuboCop's own config/default.yml marks so (1.89) and the project
# does not set its AutoCorrect to `always`, `false` or `disabled`. While editing (the default of every request)
# their corrections are not applied; their offenses still carry the edits. `contextual: true` applies them.
module Contextual
  # `AutoCorrect: contextual` in RuboCop 1.89's config/default.yml. In 1.39, Lint/LiteralAsCondition,
  # Lint/UselessAssignment and Lint/Void do not autocorrect yet and Lint/UselessOr does not exist.
  DEFAULT_COPS = %w[
    Layout/EmptyComment Lint/EmptyConditionalBody Lint/EmptyEnsure Lint/EmptyInterpolation
    Lint/LiteralAsCondition Lint/TrailingCommaInAttributeDeclaration Lint/UnusedBlockArgument
    Lint/UnusedMethodArgument Lint/UselessAccessModifier Lint/UselessAssignment Lint/UselessMethodDefinition
    Lint/UselessOr Lint/UselessTimes Lint/Void Style/EmptyElse Style/EmptyHeredoc Style/EmptyMethod
    Style/LambdaCall Style/RedundantInitialize
  ].freeze

  OPT_OUT = [false, 'false', 'disabled', 'always'].freeze

  @editing = false

  class << self
    def editing(on)
      saved = @editing
      @editing = on
      yield
    ensure
      @editing = saved
    end

    def editing?
      @editing
    end

    def contextual?(cop_name, config)
      setting = config.for_cop(cop_name)['AutoCorrect']
      return true if setting.to_s == 'contextual'

      DEFAULT_COPS.include?(cop_name) && !OPT_OUT.include?(setting)
    end
  end

  # Prepended to RuboCop::Cop::Base: no correction from a contextual cop while editing (its corrector is still
  # built, so the offense keeps its edits).
  module HoldBack
    def autocorrect?
      return false if Contextual.editing? && Contextual.contextual?(name, config)

      super
    end
  end
end

# What the CLI's Runner saw in the last run: cops that crashed (errors), warnings, and a correction loop,
# which RuboCop raises out of the run (and the CLI turns into exit status 2).
module RunRecorder
  class << self
    attr_reader :errors, :warnings, :loop

    def reset
      @errors = []
      @warnings = []
      @loop = nil
    end

    def record(runner, loop_error)
      plain = ->(text) { text.to_s.gsub(/\e\[[\d;]*m/, '') }
      @errors = runner.errors.map(&plain).uniq
      @warnings = runner.warnings.map(&plain).uniq
      @loop = loop_error&.message
    end
  end

  # Prepended to RuboCop::Runner.
  module Hook
    def run(paths)
      super
    rescue RuboCop::Runner::InfiniteCorrectionLoop => e
      loop_error = e
      raise
    ensure
      RunRecorder.record(self, loop_error)
    end
  end
end

def install_contextual_hooks
  RuboCop::Cop::Base.prepend(Contextual::HoldBack)
  RuboCop::Runner.prepend(RunRecorder::Hook)
end
