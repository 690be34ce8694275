"""Output serializers of the evaluation API: what each answer holds, so that the OpenAPI schema describes it and a
script can rely on it (values are floats, or null where a measure is undefined)."""

from rest_framework import serializers


class StatusTopicSerializer(serializers.Serializer):
    topic = serializers.CharField()
    fresh = serializers.BooleanField()
    generation = serializers.IntegerField()
    computed_generation = serializers.IntegerField()
    computed_at = serializers.DateTimeField(allow_null=True)


class StatusSerializer(serializers.Serializer):
    collection = serializers.CharField()
    qrels_version = serializers.IntegerField()
    settings = serializers.CharField()
    fresh = serializers.BooleanField(
        help_text="every topic and the collection-wide agreement up to date, and every measure asked for stored"
    )
    stale_topics = serializers.IntegerField()
    missing_measures = serializers.ListField(
        child=serializers.CharField(), help_text="measures asked for with no stored value (never so when fresh)"
    )
    agreement_fresh = serializers.BooleanField()
    topics_count = serializers.IntegerField()
    page = serializers.IntegerField()
    pages = serializers.IntegerField()
    next = serializers.URLField(allow_null=True, help_text="the next page of topics, as every list of the API links it")
    previous = serializers.URLField(allow_null=True)
    topics = StatusTopicSerializer(many=True)


class ResultsRunSerializer(serializers.Serializer):
    run = serializers.CharField(help_text="the run's tag")
    topics = serializers.IntegerField(help_text="topics evaluated")
    judged_at_10 = serializers.FloatField(allow_null=True, help_text="the engine's Judged@10")
    values = serializers.DictField(child=serializers.FloatField(allow_null=True), help_text="measure -> aggregate")


class ResultsSerializer(serializers.Serializer):
    measures = serializers.ListField(child=serializers.CharField())
    runs = ResultsRunSerializer(many=True)
    qrels_version = serializers.IntegerField()
    settings = serializers.CharField()
    fresh = serializers.BooleanField()
    stale_topics = serializers.IntegerField()
    missing_measures = serializers.ListField(child=serializers.CharField())


class RankingAgreementSerializer(serializers.Serializer):
    assessor = serializers.CharField(help_text="a pseudonym unless the collection shows assessors to researchers")
    kendall_tau = serializers.FloatField(allow_null=True)
    tau_ap = serializers.FloatField(allow_null=True)


class AgreementSerializer(serializers.Serializer):
    statistics = serializers.DictField(
        child=serializers.FloatField(allow_null=True), help_text="statistic -> mean over the topics where defined"
    )
    ranking_measure = serializers.CharField(allow_null=True, help_text="the measure `ranking` orders the runs by")
    ranking = RankingAgreementSerializer(
        many=True,
        help_text="would the leaderboard change? For each assessor, Kendall's tau and tau_AP between the runs' order "
        "under their labels and under the consensus, over all topics",
    )


class CompareTopicSerializer(serializers.Serializer):
    topic = serializers.CharField()
    a = serializers.FloatField(allow_null=True)
    b = serializers.FloatField(allow_null=True)
    difference = serializers.FloatField(allow_null=True)


class CompareSerializer(serializers.Serializer):
    a = serializers.CharField()
    b = serializers.CharField()
    measure = serializers.CharField()
    topics = CompareTopicSerializer(many=True)
    mean_difference = serializers.FloatField(allow_null=True)
    t_statistic = serializers.FloatField(allow_null=True)
    t_p_value = serializers.FloatField(allow_null=True)
    permutation_p_value = serializers.FloatField(allow_null=True)
    bootstrap_ci_95 = serializers.ListField(child=serializers.FloatField(allow_null=True), min_length=2, max_length=2)
    holm_p_value = serializers.FloatField(allow_null=True)
    pairs = serializers.IntegerField(help_text="pairs the Holm correction runs over")


class PairSerializer(serializers.Serializer):
    a = serializers.CharField()
    b = serializers.CharField()
    topics = serializers.IntegerField()
    mean_difference = serializers.FloatField(allow_null=True)
    t_p_value = serializers.FloatField(allow_null=True)
    holm_p_value = serializers.FloatField(allow_null=True)
    significant = serializers.BooleanField()


class PairsSerializer(serializers.Serializer):
    measure = serializers.CharField()
    correction = serializers.CharField()
    pairs = PairSerializer(many=True)
