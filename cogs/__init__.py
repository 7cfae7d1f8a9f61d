"""Discord adapters: each cog parses interactions, calls one service and renders the reply."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.app import ChampionshipBot


async def load_all(bot: ChampionshipBot) -> None:
    from cogs.fairplay import FairPlayCog
    from cogs.incidents import IncidentsCog
    from cogs.negotiation import NegotiationCog
    from cogs.registration import RegistrationCog
    from cogs.results import ResultsCog
    from cogs.rounds import RoundsCog
    from cogs.td import TDCog

    await bot.add_cog(RegistrationCog(bot))
    await bot.add_cog(TDCog(bot))
    await bot.add_cog(NegotiationCog(bot))
    await bot.add_cog(IncidentsCog(bot))
    await bot.add_cog(RoundsCog(bot))
    await bot.add_cog(ResultsCog(bot))
    await bot.add_cog(FairPlayCog(bot))
